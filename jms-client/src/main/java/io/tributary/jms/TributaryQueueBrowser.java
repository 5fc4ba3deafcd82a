package io.tributary.jms;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;

import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.message.TributaryObjectMessage;
import io.tributary.jms.selector.MessageSelector;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Looks at a queue without consuming: reads every partition from the queue group's committed offset (or the log
 * start when it has none) up to the end offsets at the moment the enumeration starts, without a group of its own
 * and without committing. Messages come partition by partition, each partition in order.
 *
 * <p>A share-group queue ({@link io.tributary.jms.kafka.QueueMode#SHARE}) is browsed from its share group's start
 * offset in each partition (DescribeShareGroupOffsets), or the log start where the group has no state yet. Which
 * records after the start offset are accepted, acquired by a receiver or archived, the protocol does not tell, so
 * those in flight (at most {@code group.share.partition.max.record.locks} per partition) are shown too
 * (docs/jms-mapping.md, Limits).
 *
 * <p>Threads: one enumeration at a time per browser; the enumeration is read by the thread that created it.
 */
final class TributaryQueueBrowser implements QueueBrowser {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final TributarySession session;
    private final Queue queue;
    private final MessageSelector selector;
    private final List<KafkaConsumer<byte[], byte[]>> open = new ArrayList<>();
    private volatile boolean closed;

    TributaryQueueBrowser(TributarySession session, Queue queue, String messageSelector) throws JMSException {
        this.session = session;
        this.queue = queue;
        this.selector = MessageSelector.parse(messageSelector);
    }

    private void checkClosed() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The browser is closed");
        }
        session.checkClosed();
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkClosed();
        return queue;
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkClosed();
        return selector.matchesAll() ? null : selector.text();
    }

    @Override
    public Enumeration<?> getEnumeration() throws JMSException {
        checkClosed();
        String topic = Destinations.topicName(queue);
        KafkaConsumer<byte[], byte[]> consumer;
        try {
            consumer = session.connection().clients().newConsumer(null, "earliest", "browser");
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Browsing " + queue, e);
        }
        synchronized (open) {
            open.add(consumer);
        }
        try {
            List<TopicPartition> partitions = new ArrayList<>();
            List<PartitionInfo> infos = consumer.partitionsFor(topic, TIMEOUT);
            if (infos == null || infos.isEmpty()) {
                return Collections.emptyEnumeration();
            }
            for (PartitionInfo info : infos) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, TIMEOUT);
            Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions, TIMEOUT);
            Subscription subscription = Subscription.queue(topic);
            Map<TopicPartition, Long> positions = TributaryMessageConsumer.sharesQueue(queue, subscription,
                    session.connection().settings()) ? shareStartOffsets(subscription.groupId(), partitions)
                    : committedOffsets(new HashSet<>(partitions));
            for (TopicPartition tp : partitions) {
                Long position = positions.get(tp);
                consumer.seek(tp, position == null ? starts.get(tp) : Math.max(position, starts.get(tp)));
            }
            return new Browse(consumer, ends);
        } catch (RuntimeException e) {
            closeConsumer(consumer);
            throw JmsErrors.fromKafka("Browsing " + queue, e);
        }
    }

    /** The queue group's committed offsets, read through the connection's admin client. */
    private Map<TopicPartition, Long> committedOffsets(Set<TopicPartition> partitions) throws JMSException {
        try {
            SubscriptionAdmin groups = new SubscriptionAdmin(session.connection().admin(), TIMEOUT);
            Map<TopicPartition, Long> offsets = new HashMap<>();
            groups.committedOffsets(Subscription.queue(Destinations.topicName(queue)).groupId())
                    .forEach((tp, committed) -> offsets.put(tp, committed.offset()));
            offsets.keySet().retainAll(partitions);
            return offsets;
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Reading the committed offsets of " + queue, e);
        }
    }

    /**
     * The share group's start offset in each of {@code partitions} that has share state; none for a group that does
     * not exist yet.
     */
    private Map<TopicPartition, Long> shareStartOffsets(String groupId, List<TopicPartition> partitions)
            throws JMSException {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        try {
            session.connection().admin().listShareGroupOffsets(Map.of(groupId,
                            new ListShareGroupOffsetsSpec().topicPartitions(partitions)))
                    .partitionsToOffsetInfo(groupId).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .forEach((tp, info) -> {
                        if (info != null && info.startOffset() >= 0) {
                            offsets.put(tp, info.startOffset());
                        }
                    });
            return offsets;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return offsets;
            }
            throw JmsErrors.fromKafka("Reading the share-group start offsets of " + queue, e);
        } catch (TimeoutException e) {
            throw JmsErrors.fromKafka("Reading the share-group start offsets of " + queue + " (no answer in "
                    + TIMEOUT.toSeconds() + " s)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw JmsErrors.fromKafka("Reading the share-group start offsets of " + queue, e);
        }
    }

    private void closeConsumer(KafkaConsumer<byte[], byte[]> consumer) {
        synchronized (open) {
            if (open.remove(consumer)) {
                consumer.close(Duration.ZERO);
            }
        }
    }

    @Override
    public void close() throws JMSException {
        closed = true;
        synchronized (open) {
            for (KafkaConsumer<byte[], byte[]> consumer : open) {
                consumer.close(Duration.ZERO);
            }
            open.clear();
        }
        session.browserClosed(this);
    }

    /** The messages between the starting positions and the end offsets taken when browsing began. */
    private final class Browse implements Enumeration<Message> {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Map<TopicPartition, Long> ends;
        private final List<Message> ready = new ArrayList<>();
        private boolean done;

        Browse(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
            this.consumer = consumer;
            this.ends = ends;
        }

        @Override
        public boolean hasMoreElements() {
            fill();
            return !ready.isEmpty();
        }

        @Override
        public Message nextElement() {
            fill();
            if (ready.isEmpty()) {
                throw new NoSuchElementException("no more messages in " + queue);
            }
            return ready.remove(0);
        }

        private void fill() {
            while (ready.isEmpty() && !done && !closed) {
                boolean remaining = false;
                for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                    if (consumer.position(end.getKey()) < end.getValue()) {
                        remaining = true;
                    } else {
                        consumer.pause(List.of(end.getKey()));
                    }
                }
                if (!remaining) {
                    done = true;
                    closeConsumer(consumer);
                    return;
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() >= ends.get(tp)) {
                        continue;
                    }
                    try {
                        TributaryMessage message = MessageCodec.fromRecord(record, topic -> queue,
                                session.connection().settings().plainRecordsAsText());
                        if (message instanceof TributaryObjectMessage objectMessage) {
                            objectMessage.setAllowList(session.connection().settings().objectAllowList());
                            objectMessage.setLimits(session.connection().settings().objectLimits());
                        }
                        if (selector.matches(message)) {
                            ready.add(message);
                        }
                    } catch (JMSException e) {
                        // not a readable JMS message: browsing shows what a receiver would get, which skips it
                    }
                }
            }
        }
    }
}
