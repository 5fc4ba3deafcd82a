package io.tributary.example;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The orders sent in a time range, as {@link OrderReplay} read them back from the log (JSON through JSON-B): the
 * range ({@code from} and {@code to}, both included), how many orders and items, the quantity per item (by item
 * name), how many records of the range were not orders (skipped), and the orders themselves in the order they were
 * read (each partition in offset order).
 */
public record OrderReport(Instant from, Instant to, int orders, long totalQuantity, Map<String, Long> quantityByItem,
                          int unreadable, List<Line> lines) {

    /** One order of the report: where it is in the log, when it was sent, what was ordered. */
    public record Line(int partition, long offset, Instant sentAt, String customer, String item, int quantity) {
    }

    static OrderReport of(Instant from, Instant to, List<Line> lines, int unreadable) {
        Map<String, Long> byItem = new TreeMap<>();
        long total = 0;
        for (Line line : lines) {
            byItem.merge(line.item(), (long) line.quantity(), Long::sum);
            total += line.quantity();
        }
        return new OrderReport(from, to, lines.size(), total, byItem, unreadable, List.copyOf(lines));
    }
}
