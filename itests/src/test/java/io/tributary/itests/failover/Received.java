package io.tributary.itests.failover;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;

/**
 * What {@link FailoverListener} received, in delivery order, one {@code text|offset|JMSRedelivered|JMSXDeliveryCount}
 * line per delivery ({@code offset}: {@code JMS_Tributary_Offset}). It lives as long as the deployment.
 *
 * <p>Bean-managed concurrency: the MDB adds while the servlet reads, and neither blocks the other.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Received {

    private final List<String> deliveries = new CopyOnWriteArrayList<>();

    public void record(String text, long offset, boolean redelivered, int deliveryCount) {
        deliveries.add(text + "|" + offset + "|" + redelivered + "|" + deliveryCount);
    }

    public List<String> deliveries() {
        return List.copyOf(deliveries);
    }
}
