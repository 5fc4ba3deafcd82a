package io.tributary.broker.streams;

import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The word count of Kafka Streams' own quick start, run with {@code processing.guarantee=exactly_once_v2}: lines from
 * the input topic are split into words, counted per word in a state store (changelogged, through a repartition
 * topic), and every new count goes to the output topic. With the record cache off, each occurrence of a word emits the
 * next count, so a read_committed reader of the output must see exactly 1, 2, 3, ... per word: a count processed twice
 * or lost shows as a repeat or a gap.
 *
 * <pre>
 *   WordCountApp BOOTSTRAP STATE_DIR APPLICATION_ID INPUT OUTPUT
 * </pre>
 * Prints {@code STATE RUNNING} each time the instance reaches RUNNING. Runs until killed (the test SIGKILLs it).
 */
public final class WordCountApp {

    private WordCountApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        Properties config = new Properties();
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, args[2]);
        config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        config.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        config.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // A killed instance's member stays in the group until its session times out; keep that short.
        config.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 6_000);
        config.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1_000);

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args[3], Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream()
                .to(args[4], Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), config);
        streams.setStateListener((now, before) -> {
            System.out.println("STATE " + now);
            System.out.flush();
        });
        streams.setUncaughtExceptionHandler(failure -> {
            System.out.println("FAILED " + failure);
            failure.printStackTrace(System.out);
            System.out.flush();
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .REPLACE_THREAD;
        });
        streams.start();
        new CountDownLatch(1).await();
    }
}
