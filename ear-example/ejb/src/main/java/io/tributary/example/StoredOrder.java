package io.tributary.example;

import java.time.Instant;

/**
 * A stored {@link Order} as the REST endpoint shows it (JSON through JSON-B): the database id, where the order is
 * in the log, when it was sent and stored, and what was ordered.
 */
public record StoredOrder(long id, int partition, long offset, Instant sentAt, Instant storedAt, String customer,
                          String item, int quantity) {

    static StoredOrder of(Order order) {
        OrderLine line = order.getLine();
        return new StoredOrder(order.getId(), order.getPartition(), order.getOffset(), order.getSentAt(),
                order.getStoredAt(), line.customer(), line.item(), line.quantity());
    }
}
