package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import io.netty.util.ResourceLeakDetector;
import io.tributary.broker.BrokerConfig;
import io.tributary.broker.security.AuthorizerConfig;
import io.tributary.broker.cluster.TopicAdmin;
import io.tributary.broker.storage.TmpfsTempDirFactory;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A protocol fuzzer: a few thousand seeded mutations of valid requests of every API the broker implements, at every
 * version it advertises ({@link FuzzCorpus}, {@link RequestMutator}), sent over real sockets to a real broker, each
 * checked against what the broker must do with it ({@link ExpectedOutcome}): answer what parses (with error codes
 * where the request is wrong), close the connection on what does not (with a log line naming the connection), never
 * both, never neither, and never {@code UNKNOWN_SERVER_ERROR}. Mostly one request at a time; every
 * {@link #PIPELINE_EVERY} mutants a few back to back, whose answers must come in order up to the first one the
 * broker cannot read. A connection the broker closed is replaced by a new one. First every seed is sent unchanged
 * (the corpus is valid, and every API answers at every version); every {@link #PROBE_EVERY} mutants a well-formed
 * client on a connection of its own must be served.
 *
 * <p>Afterwards: no ERROR line and no warning with an unexpected exception (every input is a client's mistake, not a
 * server error; Netty's leak detector, tracking every buffer during the run, reports at ERROR), no uncaught exception
 * on any thread, every partition of the fuzzed topic reads back to its end with the Java consumer (what the broker
 * accepted, a consumer can read), and the broker still serves: ApiVersions and Metadata on a new connection, a produce
 * and consume round trip with the Java client, and the data written before the fuzzing reads back identical, also
 * byte for byte in the segment files.
 *
 * <p>Why the checked data survives administrative requests: destructive mutants are filtered exactly, not by
 * luck. The seeds never name the checked topic, and a mutant whose bytes contain the checked topic's name or id
 * anywhere is not sent (no request can name a topic, by name or by id, without those bytes). Broker-level dynamic
 * configuration can reach every topic without naming it (a cluster default {@code log.retention.ms=1}), so an
 * IncrementalAlterConfigs mutant that alters a broker resource is sent only if it changes nothing but
 * {@link #HARMLESS_BROKER_CONFIGS}. Everything else is sent: DeleteTopics, DeleteRecords, CreatePartitions,
 * reassignments and elections of the fuzzer's own topics (the fuzzed topic itself may be deleted by a spliced
 * request), elections of all partitions (on one broker, no election can move or truncate a log). Also not sent, for
 * time's sake: requests that would create between {@link #MANY_PARTITIONS} and the broker's per-request limit of
 * partitions (valid, but each partition is a log directory and znodes; above the limit they are sent and refused).
 *
 * <p>Reproducing: the random seed is printed; {@code -Dtributary.fuzz.seed=N} reruns with another (or the same) seed
 * and {@code -Dtributary.fuzz.mutations=N} changes the count. The same seed gives the same operators at the same
 * positions; topic ids and record timestamps in the seeds differ from run to run, and so may what timing decides
 * (a join waiting for its group). Each problem is reported with the mutant's bytes. Run time with the default 4,000
 * mutants, measured on the project's shared 2-core machine: 17 to 35 s for the class (broker start and the checks
 * included), of which the fuzzing 10 to 21 s, depending on the machine's load.
 */
class ProtocolFuzzTest {

    private static final long DEFAULT_SEED = 20_2026L;
    private static final int DEFAULT_MUTATIONS = 4000;
    /** How long a request the protocol lets the broker hold (see {@link ExpectedOutcome.Kind#ANSWER_OR_WAIT}) is
     *  waited for before its connection is given up. */
    private static final Duration GRACE = Duration.ofMillis(500);
    /**
     * Every so many mutants, the next few are sent back to back before any answer is read, as clients pipeline: the
     * answers must come in request order, up to the first request that closes the connection.
     */
    private static final int PIPELINE_EVERY = 25;
    private static final int PIPELINE_DEPTH = 4;
    /** Every so many mutants, a well-formed client on a new connection must still be served. */
    private static final int PROBE_EVERY = 500;

    private static final String CHECKED = "fuzz-checked";
    private static final int CHECKED_PARTITIONS = 2;
    private static final String TARGET = "fuzz-target";
    private static final int MANY_PARTITIONS = 50;
    /** Broker configs the fuzzer may change: none of them can lose data or refuse the round trip afterwards. */
    private static final Set<String> HARMLESS_BROKER_CONFIGS = Set.of("unclean.leader.election.enable",
            "log.cleaner.min.cleanable.ratio");

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir(factory = TmpfsTempDirFactory.class)
    static Path dataDir;

    private static Map<ApiKeys, ApiVersion> advertised;
    private static FuzzCorpus.Names names;
    private static Uuid checkedId;
    private static final Map<Integer, List<Records.Observed>> checkedRecords = new TreeMap<>();
    private static final Map<Path, byte[]> checkedSegments = new TreeMap<>();

    private static ResourceLeakDetector.Level leakDetection;

    @BeforeAll
    static void startBrokerWithData() throws Exception {
        // Every Netty buffer tracked: a response buffer not released when its connection closes is reported (as an
        // ERROR line, which fails the test) once the garbage collector finds it.
        leakDetection = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir,
                BrokerConfig.SOCKET_REQUEST_MAX_BYTES, Integer.toString(1024 * 1024),
                // Members the fuzzer joins and abandons expire in a fraction of a second (see FuzzCorpus.joinGroup);
                // a mutated session timeout above the maximum is refused.
                BrokerConfig.GROUP_MIN_SESSION_TIMEOUT_MS, "100",
                BrokerConfig.GROUP_MAX_SESSION_TIMEOUT_MS, "5000",
                // Authorization on, the fuzzer's anonymous principal a super user: every request goes through the
                // authorization checks (which read the whole request) and the ACL APIs write to ZooKeeper.
                AuthorizerConfig.AUTHORIZER_CLASS_NAME, AuthorizerConfig.KAFKA_ACL_AUTHORIZER,
                AuthorizerConfig.SUPER_USERS, "User:ANONYMOUS");
        Map<String, Uuid> ids = new LinkedHashMap<>();
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            List<NewTopic> topics = new ArrayList<>();
            topics.add(new NewTopic(CHECKED, CHECKED_PARTITIONS, (short) 1));
            topics.add(new NewTopic(TARGET, 2, (short) 1));
            for (String name : List.of("fuzz-doomed", "fuzz-trimmed", "fuzz-grown", "fuzz-configs")) {
                topics.add(new NewTopic(name, 1, (short) 1));
            }
            topics.add(new NewTopic("fuzz-moved", 2, (short) 1));
            admin.createTopics(topics).all().get();
            admin.describeTopics(topics.stream().map(NewTopic::name).toList()).allTopicNames().get()
                    .forEach((name, description) -> ids.put(name, description.topicId()));
        }
        checkedId = ids.get(CHECKED);
        names = new FuzzCorpus.Names(TARGET, ids.get(TARGET), "fuzz-doomed", ids.get("fuzz-doomed"), "fuzz-trimmed",
                "fuzz-grown", "fuzz-configs", "fuzz-moved", "fuzz-created", "fuzz-auto");
        writeCheckedData();
        writeFuzzTopicData();
        advertised = apiVersions(broker.port());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        ResourceLeakDetector.setLevel(leakDetection);
        if (broker != null) {
            broker.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Test
    void mutatedRequestsOfEveryApiAreAnsweredOrRefusedAndTheBrokerKeepsServingItsData() throws Exception {
        long seed = Long.getLong("tributary.fuzz.seed", DEFAULT_SEED);
        int mutations = Integer.getInteger("tributary.fuzz.mutations", DEFAULT_MUTATIONS);
        System.out.println("ProtocolFuzzTest: random seed " + seed + " (-Dtributary.fuzz.seed), " + mutations
                + " mutations (-Dtributary.fuzz.mutations)");
        List<FuzzCorpus.Seed> seeds = FuzzCorpus.build(names, advertised);

        List<String> uncaught = Collections.synchronizedList(new ArrayList<>());
        Thread.UncaughtExceptionHandler previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            uncaught.add(thread.getName() + ": " + e);
            if (previousHandler != null) {
                previousHandler.uncaughtException(thread, e);
            }
        });
        FuzzRun run;
        long started = System.nanoTime();
        try (LogCapture brokerLog = LogCapture.quiet("io.tributary", Level.INFO);
             LogCapture otherLog = new LogCapture(org.slf4j.Logger.ROOT_LOGGER_NAME, Level.WARN)) {
            run = new FuzzRun(broker.port());
            try {
                for (FuzzCorpus.Seed valid : seeds) {
                    run.sendSeed(valid);
                }
                RequestMutator mutator = new RequestMutator(seeds, apiKeysToTry(), seed);
                for (int i = 0; i < mutations; i++) {
                    if (i % PIPELINE_EVERY == PIPELINE_EVERY - 1 && i + PIPELINE_DEPTH <= mutations) {
                        List<RequestMutator.Mutant> pipelined = new ArrayList<>();
                        for (int j = 0; j < PIPELINE_DEPTH; j++) {
                            pipelined.add(mutator.next(i + j));
                        }
                        run.sendPipelined(pipelined);
                        i += PIPELINE_DEPTH - 1;
                    } else {
                        run.send(mutator.next(i));
                    }
                    if ((i + 1) % PROBE_EVERY == 0) {
                        run.probe(i);
                    }
                }
            } finally {
                run.close();
            }
            // Leaks are reported when a collected buffer's tracker is noticed, on the next allocations.
            System.gc();
            for (int i = 0; i < 20; i++) {
                run.probe(mutations);
            }
            List<String> silentCloses = run.closesWithoutLogLine(brokerLog.events());
            List<String> errors = Stream.concat(brokerLog.events().stream(), otherLog.events().stream())
                    .filter(ProtocolFuzzTest::isServerError).map(ProtocolFuzzTest::format).toList();
            System.out.printf("ProtocolFuzzTest: %d seeds and %d mutants in %.1f s; %s%n", seeds.size(), mutations,
                    (System.nanoTime() - started) / 1e9, run.summary());
            List<String> unreadable = unreadableAcceptedRecords();
            List<String> report = new ArrayList<>();
            report(report, "requests the broker did not answer or refuse as it must", run.problems);
            report(report, "server errors for client mistakes", errors);
            report(report, "connections closed without a log line naming them", silentCloses);
            report(report, "uncaught exceptions", uncaught);
            report(report, "partitions whose accepted records a consumer cannot read", unreadable);
            if (!report.isEmpty()) {
                fail("random seed " + seed + " (-Dtributary.fuzz.seed=" + seed + " repeats the run):\n"
                        + String.join("\n", report));
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previousHandler);
        }
        // A sanity check of the mutator: about a third of what the broker reads parses (measured over many seeds).
        assertTrue(run.handled() > run.read() / 5, "too few mutants reached a handler: " + run.summary());

        brokerStillAnswersApiVersionsAndMetadata();
        roundTripWorksAndCheckedDataIsIntact();
    }

    // Before and after the fuzzing

    /** The checked topic: what a well-behaved client wrote, kept as the list of records it must read back. */
    private static void writeCheckedData() throws Exception {
        for (int p = 0; p < CHECKED_PARTITIONS; p++) {
            checkedRecords.put(p, new ArrayList<>());
        }
        // Plain and gzip batches, keys and no keys, headers, explicit timestamps.
        long timestamp = System.currentTimeMillis() - 60_000;
        for (String codec : List.of("none", "gzip")) {
            try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers(),
                    ProducerConfig.COMPRESSION_TYPE_CONFIG, codec)) {
                produceChecked(producer, codec, 150, timestamp);
            }
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            assertCheckedRecordsReadBack(consumer);
        }
        for (int p = 0; p < CHECKED_PARTITIONS; p++) {
            try (Stream<Path> files = Files.list(broker.logDir().resolve(CHECKED + "-" + p))) {
                for (Path segment : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                    checkedSegments.put(segment, Files.readAllBytes(segment));
                }
            }
        }
        assertTrue(checkedSegments.values().stream().allMatch(bytes -> bytes.length > 0), "segments written");
    }

    private static void produceChecked(KafkaProducer<String, String> producer, String label, int count,
                                       long timestamp) throws Exception {
        List<ProducerRecord<String, String>> sent = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("n", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
            ProducerRecord<String, String> record = new ProducerRecord<>(CHECKED, i % CHECKED_PARTITIONS,
                    timestamp + i, i % 5 == 0 ? null : label + "-key-" + i,
                    label + "-value-" + i + "-" + "x".repeat(i % 40), headers);
            sent.add(record);
            acks.add(producer.send(record));
        }
        producer.flush();
        for (int i = 0; i < count; i++) {
            RecordMetadata metadata = acks.get(i).get();
            ProducerRecord<String, String> record = sent.get(i);
            checkedRecords.get(metadata.partition()).add(new Records.Observed(metadata.partition(), metadata.offset(),
                    record.key(), record.value(), record.timestamp(), TimestampType.CREATE_TIME, List.of("n=" + i)));
        }
        checkedRecords.values().forEach(list -> list.sort((a, b) -> Long.compare(a.offset(), b.offset())));
    }

    private static void assertCheckedRecordsReadBack(KafkaConsumer<String, String> consumer) {
        Map<Integer, List<ConsumerRecord<String, String>>> read =
                Records.readToEnd(consumer, Records.partitions(CHECKED, CHECKED_PARTITIONS));
        for (int p = 0; p < CHECKED_PARTITIONS; p++) {
            Records.assertSameRecords(checkedRecords.get(p), read.get(p).stream().map(Records.Observed::of).toList(),
                    CHECKED + "-" + p);
        }
    }

    /** Records for the fuzzed produce, fetch and DeleteRecords to find, and a group with committed offsets. */
    private static void writeFuzzTopicData() throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(TARGET, i % 2, "k" + i, "v" + i));
                producer.send(new ProducerRecord<>("fuzz-trimmed", 0, "k" + i, "v" + i));
            }
            producer.flush();
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                "group.id", FuzzCorpus.SIMPLE_GROUP)) {
            consumer.commitSync(Map.of(new TopicPartition(TARGET, 0), new OffsetAndMetadata(3)));
        }
    }

    /**
     * Whatever the broker accepted from the fuzzer, a consumer must be able to read: the fuzzed topic's partitions
     * from the beginning to their end. (As they are now: a spliced DeleteTopics may have deleted the topic and a
     * Metadata request auto-created it again with one partition.)
     */
    private static List<String> unreadableAcceptedRecords() {
        List<String> unreadable = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            for (org.apache.kafka.common.PartitionInfo partition : consumer.partitionsFor(TARGET)) {
                TopicPartition tp = new TopicPartition(TARGET, partition.partition());
                try {
                    Records.readToEnd(consumer, List.of(tp));
                } catch (RuntimeException | AssertionError e) {
                    unreadable.add(tp + ": " + e + (e.getCause() == null ? "" : " <- " + e.getCause())
                            + "; in the log: " + unreadableBatches(tp));
                }
            }
        }
        return unreadable;
    }

    /** The batches of a partition's segment files whose records cannot be read, with why. */
    private static List<String> unreadableBatches(TopicPartition tp) {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(broker.logDir().resolve(tp.toString()))) {
            for (Path segment : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
                    for (RecordBatch batch : records.batches()) {
                        try (CloseableIterator<Record> each = batch.streamingIterator(BufferSupplier.NO_CACHING,
                                Integer.MAX_VALUE)) {
                            each.forEachRemaining(record -> { });
                        } catch (RuntimeException e) {
                            found.add("batch " + batch.baseOffset() + ".." + batch.lastOffset() + " ("
                                    + batch.compressionType() + ", " + batch.sizeInBytes() + " bytes): " + e);
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            found.add("reading the segments failed: " + e);
        }
        return found;
    }

    private static void brokerStillAnswersApiVersionsAndMetadata() throws Exception {
        assertEquals(advertised, apiVersions(broker.port()), "ApiVersions after the fuzzing");
        try (RawConnection raw = new RawConnection(broker.port())) {
            MetadataRequest request = new MetadataRequest(new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName(CHECKED))), (short) 12);
            MetadataResponse response = (MetadataResponse) raw.receive(raw.send(request, 1));
            MetadataResponse.TopicMetadata topic = response.topicMetadata().iterator().next();
            assertEquals(Errors.NONE, topic.error(), "Metadata of " + CHECKED);
            assertEquals(checkedId, topic.topicId());
            assertEquals(CHECKED_PARTITIONS, topic.partitionMetadata().size());
            topic.partitionMetadata().forEach(p -> assertEquals(Errors.NONE, p.error, "partition " + p.partition()));
        }
    }

    private void roundTripWorksAndCheckedDataIsIntact() throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            produceChecked(producer, "after", 20, System.currentTimeMillis());
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            assertCheckedRecordsReadBack(consumer);
        }
        for (Map.Entry<Path, byte[]> segment : checkedSegments.entrySet()) {
            byte[] now = Files.readAllBytes(segment.getKey());
            assertTrue(now.length >= segment.getValue().length, segment.getKey() + " shrank");
            assertArrayEquals(segment.getValue(), Arrays.copyOf(now, segment.getValue().length),
                    segment.getKey() + " changed");
        }
    }

    // The fuzzing

    /** The mutants, one at a time over one connection until the broker closes it; the tallies; the problems. */
    private static final class FuzzRun implements AutoCloseable {

        private final int port;
        private final List<String> problems = new ArrayList<>();
        private final Map<ExpectedOutcome.Kind, Integer> outcomes = new EnumMap<>(ExpectedOutcome.Kind.class);
        private final Map<ApiKeys, Integer> handledByApi = new EnumMap<>(ApiKeys.class);
        private final Map<Errors, Integer> answeredErrors = new TreeMap<>();
        /** Milliseconds spent per API (of the request as parsed; "unreadable" for the rest), to see where time goes. */
        private final Map<String, Long> millisByApi = new TreeMap<>();
        /** Client ports of connections the broker closed, with the mutant that made it. */
        private final Map<Integer, String> closedByBroker = new LinkedHashMap<>();
        private int excluded;
        private int abandoned;
        private int pipelines;
        /** Pipelined requests behind one that closed the connection: the broker never reads them. */
        private int unread;
        private int connections;
        private int correlationId = 1_000_000;
        private RawConnection connection;

        FuzzRun(int port) {
            this.port = port;
        }

        /** An unchanged seed must be answered (or, acks=0, not answered): the corpus is valid. */
        void sendSeed(FuzzCorpus.Seed seed) throws IOException {
            ExpectedOutcome expected = ExpectedOutcome.of(seed.bytes(), advertised);
            if (expected.kind() == ExpectedOutcome.Kind.CLOSE) {
                fail("seed " + seed.name() + " does not parse: " + expected.why());
            }
            exercise(seed.name(), seed.bytes(), expected);
        }

        void send(RequestMutator.Mutant mutant) throws IOException {
            ExpectedOutcome expected = ExpectedOutcome.of(mutant.bytes(), advertised);
            if (mightDestroyCheckedData(mutant.bytes(), expected)) {
                excluded++;
                return;
            }
            exercise(mutant.describe(), mutant.bytes(), expected);
        }

        /**
         * Sends the mutants in one write on one connection, then reads: the answers of those before the first one
         * the broker cannot read, in order (or the connection closes, which may drop them: a client retries after a
         * close), then the close. Mutants that may be held or get no answer are sent on their own.
         */
        void sendPipelined(List<RequestMutator.Mutant> mutants) throws IOException {
            List<RequestMutator.Mutant> sendable = new ArrayList<>();
            List<ExpectedOutcome> expectations = new ArrayList<>();
            for (RequestMutator.Mutant mutant : mutants) {
                ExpectedOutcome expected = ExpectedOutcome.of(mutant.bytes(), advertised);
                if (mightDestroyCheckedData(mutant.bytes(), expected)) {
                    excluded++;
                } else if (expected.kind() == ExpectedOutcome.Kind.ANSWER
                        || expected.kind() == ExpectedOutcome.Kind.CLOSE) {
                    sendable.add(mutant);
                    expectations.add(expected);
                } else {
                    exercise(mutant.describe(), mutant.bytes(), expected);
                }
            }
            if (sendable.isEmpty()) {
                return;
            }
            pipelines++;
            String what = "pipelined " + sendable.stream().map(RequestMutator.Mutant::describe).toList();
            RawConnection raw = connection();
            try {
                java.io.ByteArrayOutputStream frames = new java.io.ByteArrayOutputStream();
                for (RequestMutator.Mutant mutant : sendable) {
                    frames.write(ByteBuffer.allocate(4).putInt(mutant.bytes().length).array());
                    frames.write(mutant.bytes());
                }
                raw.sendBytes(frames.toByteArray());
                for (int k = 0; k < expectations.size(); k++) {
                    ExpectedOutcome expected = expectations.get(k);
                    outcomes.merge(expected.kind(), 1, Integer::sum);
                    unread += expected.kind() == ExpectedOutcome.Kind.CLOSE ? expectations.size() - 1 - k : 0;
                    byte[] frame = raw.nextFrame(expected.kind() == ExpectedOutcome.Kind.CLOSE
                            ? ExpectedOutcome.REPLY_DEADLINE : expected.within());
                    if (expected.kind() == ExpectedOutcome.Kind.CLOSE) {
                        if (frame != null) {
                            problem(what, "answered (" + frame.length + " bytes) at the place of a frame it cannot "
                                    + "read: " + expected.why());
                        } else {
                            closedByBroker.put(raw.localPort(), what);
                        }
                        dropConnection();
                        return;
                    }
                    if (frame == null) {
                        // Closed early: allowed only because a later request in this pipeline cannot be read.
                        if (expectations.stream().noneMatch(e -> e.kind() == ExpectedOutcome.Kind.CLOSE)) {
                            problem(what, "closed the connection instead of answering " + expected.answerHeader());
                        } else {
                            closedByBroker.put(raw.localPort(), what);
                        }
                        dropConnection();
                        return;
                    }
                    handledByApi.merge(expected.answerHeader().apiKey(), 1, Integer::sum);
                    checkAnswer(what, frame, expected);
                    if (connection == null) {
                        return; // the answer did not parse: the stream is out of step
                    }
                }
            } catch (SocketTimeoutException e) {
                problem(what, "a pipelined request was neither answered nor refused in time");
                dropConnection();
            } catch (IOException e) {
                problem(what, "connection failed: " + e);
                dropConnection();
            }
        }

        private void exercise(String what, byte[] bytes, ExpectedOutcome expected) throws IOException {
            long start = System.nanoTime();
            try {
                exerciseTimed(what, bytes, expected);
            } finally {
                String api = expected.request() == null ? "unreadable" : expected.request().apiKey().name();
                millisByApi.merge(api, (System.nanoTime() - start) / 1_000_000, Long::sum);
            }
        }

        private void exerciseTimed(String what, byte[] bytes, ExpectedOutcome expected) throws IOException {
            outcomes.merge(expected.kind(), 1, Integer::sum);
            if (expected.request() != null && expected.kind() != ExpectedOutcome.Kind.CLOSE) {
                handledByApi.merge(expected.request().apiKey(), 1, Integer::sum);
            }
            RawConnection raw = connection();
            try {
                raw.sendFrame(ByteBuffer.wrap(bytes));
                switch (expected.kind()) {
                    case CLOSE -> {
                        byte[] frame = raw.nextFrame(ExpectedOutcome.REPLY_DEADLINE);
                        if (frame != null) {
                            problem(what, "answered (" + frame.length + " bytes) although the frame cannot be read: "
                                    + expected.why());
                        } else {
                            closedByBroker.put(raw.localPort(), what);
                        }
                        dropConnection();
                    }
                    case ANSWER -> checkAnswer(what, raw.nextFrame(expected.within()), expected);
                    case NO_ANSWER -> {
                        // Nothing comes for an acks=0 produce; the next request's answer must, in order.
                        RequestHeader probe = raw.send(new ApiVersionsRequest.Builder().build((short) 3),
                                correlationId++);
                        byte[] frame = raw.nextFrame(ExpectedOutcome.REPLY_DEADLINE);
                        if (frame == null) {
                            problem(what, "closed the connection after an acks=0 produce");
                            dropConnection();
                        } else {
                            parse(what + " (the ApiVersions request after it)", frame, probe);
                        }
                    }
                    case ANSWER_OR_WAIT -> {
                        try {
                            checkAnswer(what, raw.nextFrame(GRACE), expected);
                        } catch (SocketTimeoutException e) {
                            abandoned++;
                            dropConnection();
                        }
                    }
                }
            } catch (SocketTimeoutException e) {
                problem(what, "neither answered nor closed within " + expected.within()
                        + " (" + expected.kind() + ")");
                dropConnection();
            } catch (IOException e) {
                problem(what, "connection failed: " + e);
                dropConnection();
            }
        }

        private void checkAnswer(String what, byte[] frame, ExpectedOutcome expected) {
            if (frame == null) {
                problem(what, "closed the connection instead of answering " + expected.answerHeader());
                dropConnection();
                return;
            }
            AbstractResponse response = parse(what, frame, expected.answerHeader());
            if (response != null) {
                response.errorCounts().forEach((error, count) -> answeredErrors.merge(error, count, Integer::sum));
                if (response.errorCounts().containsKey(Errors.UNKNOWN_SERVER_ERROR)) {
                    // The error code of a server bug: a client's mistake has a code of its own.
                    problem(what, "answered UNKNOWN_SERVER_ERROR: " + response);
                }
            }
        }

        private AbstractResponse parse(String what, byte[] frame, RequestHeader header) {
            try {
                return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
            } catch (RuntimeException e) {
                problem(what, "the answer does not parse as a response to " + header + ": " + e);
                dropConnection(); // the stream may be out of step
                return null;
            }
        }

        /** A well-formed client on a connection of its own: ApiVersions and Metadata answered without error. */
        void probe(int afterMutant) {
            try (RawConnection raw = new RawConnection(port)) {
                ApiVersionsResponse versions = (ApiVersionsResponse) raw.receive(
                        raw.send(new ApiVersionsRequest.Builder().build((short) 3), 1));
                MetadataResponse metadata = (MetadataResponse) raw.receive(raw.send(new MetadataRequest(
                        new MetadataRequestData().setTopics(null), (short) 12), 2));
                if (versions.data().errorCode() != Errors.NONE.code() || metadata.brokers().isEmpty()) {
                    problems.add("after mutant #" + afterMutant + " a well-formed client got " + versions + " and "
                            + metadata);
                }
            } catch (IOException | RuntimeException e) {
                problems.add("after mutant #" + afterMutant + " a well-formed client was not served: " + e);
            }
        }

        private RawConnection connection() throws IOException {
            if (connection == null) {
                connection = new RawConnection(port);
                connections++;
            }
            return connection;
        }

        private void dropConnection() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (IOException e) {
                    // closed anyway
                }
                connection = null;
            }
        }

        private void problem(String what, String problem) {
            problems.add(problem + ": " + what);
        }

        /** Connections the broker closed with no log line naming them (its connection id ends "-:clientPort-n"). */
        List<String> closesWithoutLogLine(List<ILoggingEvent> events) {
            Set<Integer> named = new HashSet<>();
            for (ILoggingEvent event : events) {
                String message = event.getFormattedMessage();
                int at = message.indexOf("-127.0.0.1:");
                while (at >= 0) {
                    int start = at + "-127.0.0.1:".length();
                    int end = start;
                    while (end < message.length() && Character.isDigit(message.charAt(end))) {
                        end++;
                    }
                    if (end > start && event.getLevel().isGreaterOrEqual(Level.INFO)) {
                        named.add(Integer.parseInt(message.substring(start, end)));
                    }
                    at = message.indexOf("-127.0.0.1:", end);
                }
            }
            return closedByBroker.entrySet().stream().filter(closed -> !named.contains(closed.getKey()))
                    .map(closed -> "port " + closed.getKey() + ": " + closed.getValue()).toList();
        }

        /** Requests the broker read (answered, refused or held), seeds included. */
        int read() {
            return outcomes.values().stream().mapToInt(Integer::intValue).sum();
        }

        int handled() {
            return handledByApi.values().stream().mapToInt(Integer::intValue).sum();
        }

        String summary() {
            return "outcomes " + outcomes + ", " + excluded + " not sent (could destroy the checked data), "
                    + abandoned + " left waiting, " + pipelines + " pipelines (" + unread + " requests behind a refused one), "
                    + connections
                    + " connections; requests that parsed, by API: "
                    + handledByApi + "; error codes answered: " + answeredErrors + "; ms by API: " + millisByApi;
        }

        @Override
        public void close() {
            dropConnection();
        }
    }

    /**
     * Whether a mutant could delete or change the checked topic's data or make the broker refuse the round trip
     * afterwards (see the class comment): it names the checked topic, or alters broker configuration other than
     * {@link #HARMLESS_BROKER_CONFIGS}.
     */
    private static boolean mightDestroyCheckedData(byte[] bytes, ExpectedOutcome expected) {
        ByteBuffer id = ByteBuffer.allocate(16).putLong(checkedId.getMostSignificantBits())
                .putLong(checkedId.getLeastSignificantBits());
        if (FuzzCorpus.indexOf(bytes, CHECKED.getBytes(StandardCharsets.UTF_8)) >= 0
                || FuzzCorpus.indexOf(bytes, id.array()) >= 0) {
            return true;
        }
        if (createsManyPartitions(expected)) {
            return true;
        }
        if (expected.request() instanceof IncrementalAlterConfigsRequest alter) {
            for (IncrementalAlterConfigsRequestData.AlterConfigsResource resource : alter.data().resources()) {
                if (resource.resourceType() != 2 && resource.configs().stream()
                        .anyMatch(config -> !HARMLESS_BROKER_CONFIGS.contains(config.name()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether a request would really create more than {@link #MANY_PARTITIONS} partitions (and at most the broker's
     * limit, above which it is refused): valid, but each partition costs a log directory, index files and znodes,
     * thousands of them the fuzzer's time budget, not its findings.
     */
    private static boolean createsManyPartitions(ExpectedOutcome expected) {
        if (expected.request() instanceof CreateTopicsRequest create && !create.data().validateOnly()) {
            long partitions = 0;
            for (CreateTopicsRequestData.CreatableTopic topic : create.data().topics()) {
                partitions += topic.assignments().isEmpty() ? Math.max(topic.numPartitions(), 0)
                        : topic.assignments().size();
            }
            return partitions > MANY_PARTITIONS && partitions <= TopicAdmin.MAX_PARTITIONS_PER_REQUEST;
        }
        if (expected.request() instanceof CreatePartitionsRequest add && !add.data().validateOnly()) {
            return add.data().topics().stream().anyMatch(topic -> topic.count() > MANY_PARTITIONS
                    && topic.count() <= TopicAdmin.MAX_PARTITIONS_PER_REQUEST);
        }
        return false;
    }

    /** The API keys the mutator writes into headers: every implemented one and a few the broker does not implement. */
    private static short[] apiKeysToTry() {
        List<Short> keys = new ArrayList<>();
        advertised.keySet().forEach(api -> keys.add(api.id));
        for (ApiKeys api : List.of(ApiKeys.ALTER_CONFIGS, ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS,
                ApiKeys.CONSUMER_GROUP_HEARTBEAT, ApiKeys.DESCRIBE_ACLS, ApiKeys.SASL_HANDSHAKE,
                ApiKeys.LEADER_AND_ISR, ApiKeys.ENVELOPE)) {
            keys.add(api.id);
        }
        short[] result = new short[keys.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = keys.get(i);
        }
        return result;
    }

    private static Map<ApiKeys, ApiVersion> apiVersions(int port) throws IOException {
        try (RawConnection raw = new RawConnection(port)) {
            ApiVersionsResponse response = (ApiVersionsResponse) raw.receive(
                    raw.send(new ApiVersionsRequest.Builder().build((short) 3), 1));
            assertEquals(Errors.NONE.code(), response.data().errorCode());
            Map<ApiKeys, ApiVersion> versions = new EnumMap<>(ApiKeys.class);
            response.data().apiKeys().forEach(v -> versions.put(ApiKeys.forId(v.apiKey()), v.duplicate()));
            return versions;
        }
    }

    /**
     * A server error: any ERROR line, or a warning that carries an exception other than the client hanging up
     * (the broker's warnings for bad requests name the problem in their message, without a stack trace).
     */
    private static boolean isServerError(ILoggingEvent event) {
        if (event.getLevel().isGreaterOrEqual(Level.ERROR)) {
            return true;
        }
        IThrowableProxy thrown = event.getThrowableProxy();
        return event.getLevel().isGreaterOrEqual(Level.WARN) && thrown != null
                && !thrown.getClassName().startsWith("java.io.") && !thrown.getClassName().contains("Socket")
                && !thrown.getClassName().contains("ClosedChannel") && event.getLoggerName().startsWith("io.");
    }

    private static String format(ILoggingEvent event) {
        IThrowableProxy thrown = event.getThrowableProxy();
        String cause = "";
        if (thrown != null) {
            cause = " <- " + thrown.getClassName() + ": " + thrown.getMessage() + Arrays.stream(
                    thrown.getStackTraceElementProxyArray()).limit(6).map(Object::toString)
                    .collect(Collectors.joining(" ", " ", ""));
        }
        return event.getLevel() + " [" + event.getThreadName() + "] " + event.getLoggerName() + " - "
                + event.getFormattedMessage() + cause;
    }

    /** Adds a section for {@code findings}, the first 20 of them, to {@code report}; nothing if there are none. */
    private static void report(List<String> report, String what, List<String> findings) {
        if (findings.isEmpty()) {
            return;
        }
        report.add(findings.size() + " " + what + ":");
        findings.stream().limit(20).forEach(finding -> report.add("  " + finding));
        if (findings.size() > 20) {
            report.add("  ...");
        }
    }
}
