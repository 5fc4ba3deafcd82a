package io.tributary.itests.inbound;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;

/**
 * Every delivery the test MDBs saw, per queue, in the order of delivery, as {@code text|JMSRedelivered|JMSXDeliveryCount}
 * lines. Bean-managed concurrency: the MDBs add while the servlet reads, and neither blocks the other.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Deliveries {

    private final Map<String, List<String>> byQueue = new ConcurrentHashMap<>();

    public void add(String queue, String text, boolean redelivered, int deliveryCount) {
        byQueue.computeIfAbsent(queue, q -> new CopyOnWriteArrayList<>())
                .add(text + "|" + redelivered + "|" + deliveryCount);
    }

    public List<String> of(String queue) {
        return List.copyOf(byQueue.getOrDefault(queue, List.of()));
    }
}
