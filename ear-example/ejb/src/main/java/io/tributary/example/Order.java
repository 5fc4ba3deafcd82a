package io.tributary.example;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;

/**
 * An order the {@link OrderListener} stored: its {@link OrderLine}, where it is in the log (partition and offset of
 * the {@value OrderPublisher#ORDERS} topic, from the read-only message properties {@code JMS_Tributary_Partition}
 * and {@code JMS_Tributary_Offset}), when it was sent (the record's timestamp) and when it was stored.
 *
 * <p>Table {@code STORED_ORDERS}; the entity is named {@code StoredOrder} because {@code ORDER} is reserved in JPQL
 * and SQL. The log position is unique ({@code ORDERS_LOG_POSITION}): one record of the log is one order, so a
 * redelivered record can never be stored twice (see {@link OrderBook#store}). Times are epoch milliseconds, as
 * Kafka keeps them: {@code java.time.Instant} is a basic type only from Jakarta Persistence 3.2, and this
 * application runs on 3.1 (Jakarta EE 10).
 *
 * <p>Not thread-safe, as entities are; created by {@link OrderBook} in the MDB's transaction.
 */
@Entity(name = "StoredOrder")
@Table(name = "STORED_ORDERS", uniqueConstraints = @UniqueConstraint(name = "ORDERS_LOG_POSITION",
        columnNames = {"KAFKA_PARTITION", "KAFKA_OFFSET"}))
public class Order {

    /*
     * A sequence, not an IDENTITY column: Payara's EclipseLink (4.0) writes "BIGINT IDENTITY" for H2, which the H2 2.x
     * behind Payara's default datasource refuses, so the table was never created there; a sequence is generated
     * correctly by both EclipseLink and WildFly's Hibernate.
     */
    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "storedOrderIds")
    @SequenceGenerator(name = "storedOrderIds", sequenceName = "STORED_ORDER_IDS", allocationSize = 20)
    private Long id;

    @Column(name = "CUSTOMER", nullable = false, length = OrderLine.MAX_NAME_LENGTH)
    private String customer;

    @Column(name = "ITEM", nullable = false, length = OrderLine.MAX_NAME_LENGTH)
    private String item;

    @Column(name = "QUANTITY", nullable = false)
    private int quantity;

    // PARTITION and OFFSET are reserved words in several databases (H2, Derby, PostgreSQL), OFFSET also in some
    // query languages (Hibernate's HQL): neither is a name here.
    @Column(name = "KAFKA_PARTITION", nullable = false)
    private int logPartition;

    @Column(name = "KAFKA_OFFSET", nullable = false)
    private long logOffset;

    @Column(name = "SENT_AT_MS", nullable = false)
    private long sentAtMillis;

    @Column(name = "STORED_AT_MS", nullable = false)
    private long storedAtMillis;

    /** For the persistence provider. */
    protected Order() {
    }

    Order(OrderLine line, int partition, long offset, Instant sentAt, Instant storedAt) {
        this.customer = line.customer();
        this.item = line.item();
        this.quantity = line.quantity();
        this.logPartition = partition;
        this.logOffset = offset;
        this.sentAtMillis = sentAt.toEpochMilli();
        this.storedAtMillis = storedAt.toEpochMilli();
    }

    public Long getId() {
        return id;
    }

    public OrderLine getLine() {
        return new OrderLine(customer, item, quantity);
    }

    public int getPartition() {
        return logPartition;
    }

    public long getOffset() {
        return logOffset;
    }

    public Instant getSentAt() {
        return Instant.ofEpochMilli(sentAtMillis);
    }

    public Instant getStoredAt() {
        return Instant.ofEpochMilli(storedAtMillis);
    }
}
