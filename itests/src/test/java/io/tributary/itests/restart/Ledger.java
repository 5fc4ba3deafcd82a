package io.tributary.itests.restart;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;

/**
 * What {@link RestartListener} received, as {@code text|JMSRedelivered|JMSXDeliveryCount} lines in delivery order,
 * and a gate that holds the first delivery of {@value #HOLD} until the test opens it: the test stops the broker while
 * that delivery is in progress.
 *
 * <p>Bean-managed concurrency: the MDB records and waits while the servlet reads and opens, none blocking the others.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Ledger {

    public static final String HOLD = "m-20";
    /** Only if the test never opens the gate (it failed): the delivery then ends, and so can the undeployment. */
    private static final long HOLD_TIMEOUT_SECONDS = 120;

    private final List<String> deliveries = new CopyOnWriteArrayList<>();
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private final CountDownLatch gate = new CountDownLatch(1);

    public void record(String text, boolean redelivered, int deliveryCount) {
        deliveries.add(text + "|" + redelivered + "|" + deliveryCount);
    }

    /** Waits at the gate if {@code text} is {@value #HOLD} and has not waited before. */
    public void holdIfGated(String text) {
        if (!HOLD.equals(text) || !held.add(text)) {
            return;
        }
        try {
            gate.await(HOLD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void open() {
        gate.countDown();
    }

    public List<String> deliveries() {
        return List.copyOf(deliveries);
    }
}
