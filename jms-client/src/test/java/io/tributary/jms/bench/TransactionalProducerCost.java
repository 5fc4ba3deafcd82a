package io.tributary.jms.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What one transactional {@link KafkaProducer} costs (not a test): creates N of them against a cluster, each with its
 * own transactional id, runs {@code initTransactions} and one small transaction on each, and prints the threads and
 * the retained heap they add and how long {@code initTransactions} and a transaction took. The numbers decide how the
 * provider gives transacted sessions their producers (a pool per transactional id prefix, see
 * {@code TransactionalProducers}).
 *
 * <pre>  TransactionalProducerCost &lt;bootstrap&gt; [N (default 20)] [topic (default txcost)]</pre>
 */
public final class TransactionalProducerCost {

    private TransactionalProducerCost() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        String topic = args.length > 2 ? args[2] : "txcost";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            if (!admin.listTopics().names().get().contains(topic)) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            }
        }
        long heapBefore = retainedHeap();
        int threadsBefore = Thread.activeCount();
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        long createNanos = 0;
        long initNanos = 0;
        long firstTxnNanos = 0;
        long nextTxnNanos = 0;
        String run = Long.toString(System.currentTimeMillis());
        for (int i = 0; i < count; i++) {
            Map<String, Object> props = new HashMap<>();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txcost-" + run + "-" + i);
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            long t0 = System.nanoTime();
            KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                    new ByteArraySerializer());
            long t1 = System.nanoTime();
            producer.initTransactions();
            long t2 = System.nanoTime();
            transaction(producer, topic);
            long t3 = System.nanoTime();
            transaction(producer, topic);
            long t4 = System.nanoTime();
            createNanos += t1 - t0;
            initNanos += t2 - t1;
            firstTxnNanos += t3 - t2;
            nextTxnNanos += t4 - t3;
            producers.add(producer);
        }
        long heapAfter = retainedHeap();
        int threadsAfter = Thread.activeCount();
        System.out.printf(Locale.ROOT, "producers=%d threads_per_producer=%.1f retained_heap_kib_per_producer=%.0f "
                        + "create_ms=%.1f init_transactions_ms=%.1f first_transaction_ms=%.1f next_transaction_ms=%.1f"
                        + "%n", count, (threadsAfter - threadsBefore) / (double) count,
                (heapAfter - heapBefore) / 1024.0 / count, createNanos / 1e6 / count, initNanos / 1e6 / count,
                firstTxnNanos / 1e6 / count, nextTxnNanos / 1e6 / count);
        for (KafkaProducer<byte[], byte[]> producer : producers) {
            producer.close();
        }
    }

    private static void transaction(KafkaProducer<byte[], byte[]> producer, String topic) throws Exception {
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, new byte[1024])).get();
        producer.commitTransaction();
    }

    private static long retainedHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
