package io.tributary.jms.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import javax.transaction.xa.Xid;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The XA log: a compacted topic (default {@value #DEFAULT_TOPIC}, one partition) that makes an XA branch's prepared
 * state durable. {@code prepare} writes a PREPARED record ({@link XaLogRecord}) keyed by the Xid once the branch's
 * Kafka transaction holds everything; {@code commit} and {@code rollback} write a tombstone once the transaction is
 * decided. After a crash of the application server, what the log holds without a tombstone is what
 * {@code XAResource.recover()} may report as in doubt.
 *
 * <p>Why a topic of its own, written outside the branch's transaction: the prepared state must survive the producer
 * that opened the transaction, and kafka-clients has no public API to hand a prepared transaction to another
 * producer (KIP-939). The record is written with {@code acks=all} by an idempotent producer, awaited before
 * {@code prepare} returns. Compaction keeps one record per Xid and drops the resolved ones.
 *
 * <p>Threads: any; the producer is thread-safe, {@link #read()} makes a consumer of its own for each call.
 */
public final class XaLog implements AutoCloseable {

    public static final String DEFAULT_TOPIC = "tributary-xa-log";
    private static final Logger log = LoggerFactory.getLogger(XaLog.class);
    /** The replication factor the log asks for, capped by the live brokers (1 on a one-broker test cluster). */
    private static final int REPLICATION_FACTOR = 3;

    private final String topic;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Map<String, Object> consumerConfig;
    private final Duration timeout;
    private volatile boolean topicReady;

    /**
     * @param producer       an idempotent {@code acks=all} producer, owned by this log from now on
     * @param consumerConfig a consumer configuration without a group ({@link KafkaClientConfig#consumer})
     */
    public XaLog(String topic, Admin admin, KafkaProducer<byte[], byte[]> producer,
                 Map<String, Object> consumerConfig, Duration timeout) {
        this.topic = topic;
        this.admin = admin;
        this.producer = producer;
        this.consumerConfig = consumerConfig;
        this.timeout = timeout;
    }

    public String topic() {
        return topic;
    }

    /** Creates the topic if it is missing: compacted, one partition, replicated up to 3 times. */
    private void ensureTopic() {
        if (topicReady) {
            return;
        }
        try {
            if (!admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS).contains(topic)) {
                int brokers = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).size();
                NewTopic newTopic = new NewTopic(topic, 1, (short) Math.max(1, Math.min(REPLICATION_FACTOR, brokers)))
                        .configs(Map.of("cleanup.policy", "compact"));
                try {
                    admin.createTopics(List.of(newTopic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    log.info("Created the XA log topic {}", topic);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            topicReady = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("Interrupted while creating the XA log topic " + topic, e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new KafkaException("Creating the XA log topic " + topic + " failed: " + e, e);
        }
    }

    /** Writes the branch's PREPARED record and waits until all in-sync replicas have it. */
    public void prepared(XaLogRecord record) {
        write(record.xid(), record.value());
    }

    /** Writes the branch's tombstone: it was decided. */
    public void resolved(Xid xid) {
        write(xid, null);
    }

    private void write(Xid xid, byte[] value) {
        ensureTopic();
        try {
            producer.send(new ProducerRecord<>(topic, 0, XaLogRecord.key(xid), value))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("Interrupted while writing " + xid + " to the XA log " + topic, e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new KafkaException("Writing " + (value == null ? "the tombstone" : "the PREPARED record") + " of "
                    + xid + " to the XA log " + topic + " failed: " + e, e);
        }
    }

    /** The PREPARED records without a tombstone, in log order: the whole log, read to its end. */
    public Map<XaLogRecord.XaXid, XaLogRecord> read() {
        ensureTopic();
        Map<XaLogRecord.XaXid, XaLogRecord> prepared = new LinkedHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClientConfig.newConsumer(consumerConfig)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, timeout)) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(partitions, timeout));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!ends.isEmpty()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new KafkaException("Reading the XA log " + topic + " to its end " + ends
                            + " took longer than " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    try {
                        XaLogRecord.XaXid xid = XaLogRecord.parseKey(record.key());
                        if (record.value() == null) {
                            prepared.remove(xid);
                        } else {
                            prepared.put(xid, XaLogRecord.parse(xid, record.value()));
                        }
                    } catch (IllegalArgumentException | NullPointerException e) {
                        // Not written by this format (another program's record, a newer version): not ours to decide.
                        log.warn("Skipping record {}@{} of the XA log {}: {}", record.partition(), record.offset(),
                                topic, e.toString());
                    }
                }
                ends.entrySet().removeIf(end -> consumer.position(end.getKey(), timeout) >= end.getValue());
            }
        }
        return prepared;
    }

    /** The PREPARED record of {@code xid} without a tombstone, if there is one. */
    public Optional<XaLogRecord> find(Xid xid) {
        return Optional.ofNullable(read().get(XaLogRecord.XaXid.of(xid)));
    }

    /** The transactional ids that hold prepared transactions: a producer pool must not initialise them. */
    public static List<String> transactionalIds(Collection<XaLogRecord> prepared) {
        return prepared.stream().map(XaLogRecord::transactionalId).distinct().toList();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
