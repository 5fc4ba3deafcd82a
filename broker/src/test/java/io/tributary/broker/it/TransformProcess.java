package io.tributary.broker.it;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.tributary.testsupport.Clients;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The processing client of {@link TransactionalOffsetsTest}'s exactly-once test, run in a JVM of its own
 * ({@link io.tributary.testsupport.ChildJvm}) so that the test can SIGKILL it: a consume-transform-produce loop with
 * the official clients, each polled batch one transaction (the transformed records to the output topic, the consumed
 * offsets by {@code sendOffsetsToTransaction} with the consumer's group metadata). A static member of its group, so
 * that the next process with the same instance id takes over the assignment at once.
 *
 * <p>Arguments: bootstrap servers, input topic, output topic, group id, transactional id, and the number of
 * transactions to commit before stopping inside the next one ({@code -1}: never). Stopping inside a transaction
 * means: the records are sent and flushed and the offsets sent to the transaction, then the process prints
 * {@value #STOPPED_IN_TRANSACTION} and blocks, so that a SIGKILL catches it with a transaction open. After each
 * commit it prints {@value #COMMITTED} and the transaction's record count.
 */
public final class TransformProcess {

    static final String STOPPED_IN_TRANSACTION = "STOPPED-IN-TRANSACTION";
    static final String COMMITTED = "COMMITTED";

    private TransformProcess() {
    }

    /** The transformation: an output value names its input record, so that the test can count each input. */
    static String transform(ConsumerRecord<String, String> record) {
        return "processed-" + record.value();
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String input = args[1];
        String output = args[2];
        String group = args[3];
        String transactionalId = args[4];
        long stopInside = Long.parseLong(args[5]);
        try (KafkaConsumer<String, String> consumer = Clients.groupConsumer(bootstrap, group,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, group + "-processor",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "25");
             KafkaProducer<String, String> producer = Clients.producer(bootstrap,
                     ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                     ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000")) {
            producer.initTransactions();
            consumer.subscribe(List.of(input));
            long committed = 0;
            while (true) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<String, String> record : records) {
                    producer.send(new ProducerRecord<>(output, record.key(), transform(record)));
                    offsets.put(new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                if (committed == stopInside) {
                    producer.flush();
                    System.out.println(STOPPED_IN_TRANSACTION);
                    System.out.flush();
                    Thread.currentThread().join(); // until SIGKILL
                }
                producer.commitTransaction();
                committed++;
                System.out.println(COMMITTED + " " + records.count());
                System.out.flush();
            }
        }
    }
}
