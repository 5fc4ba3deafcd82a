package io.tributary.itests.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.tributary.itests.bench.app.BenchListener;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jboss.as.controller.client.ModelControllerClient;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The MDB throughput benchmark program (not a test; {@code itests/bin/mdb-benchmark} starts it): how many messages
 * per second one message-driven bean ({@link BenchListener}) consumes from a backlog in a running WildFly
 * ({@code standalone-full.xml}), through Tributary's resource adapter or through WildFly's built-in Artemis.
 *
 * <pre>
 *   MdbBenchmark tributary|artemis --http HOST:PORT --management HOST:PORT [--bootstrap HOST:PORT] [--rar PATH]
 *                [--work DIR] [--messages N] [--warmup N] [--sessions S] [--size BYTES] [--fill-threads T]
 *                [--timeout-s S] [--broker-pid PID]
 * </pre>
 *
 * <p>It expects a started server (it waits for it to be running) whose MDB instance pool and, for Artemis, queue
 * {@value #ARTEMIS_QUEUE} ({@value #ARTEMIS_QUEUE_JNDI}) the script configured, and for Tributary a broker at
 * {@code --bootstrap}, which the server's {@code tributary.bootstrap.servers} names too. It then deploys, for
 * Tributary, {@code tributary-ra.rar} and creates topic {@value #TRIBUTARY_TOPIC} with as many partitions as
 * sessions; and a WAR with the MDB (delivery stopped), a control servlet and descriptors that bind the MDB to the
 * provider with {@code maxSession} = sessions. Each phase, the warm-up and then the measured one:
 * <ol>
 *   <li>the servlet produces N persistent messages of {@code --size} bytes through the provider's pooled connection
 *       factory ({@code java:/JmsXA}, or {@code java:/jms/TributaryConnectionFactory}) inside the server;</li>
 *   <li>the backlog is checked to be N (Artemis's queue message count; Tributary's log end minus the queue group's
 *       committed offsets);</li>
 *   <li>delivery starts ({@code start-delivery}); the throughput is N over the time from the first delivery to the
 *       Nth, both taken by the MDB with {@link System#nanoTime()};</li>
 *   <li>after a settling pause the MDB must have received exactly N messages, each sequence number once; delivery
 *       stops and the backlog must be 0.</li>
 * </ol>
 *
 * <p>Prints one line on stdout,
 * {@code <provider> sessions=S messages=N msgs/s=<measured> warmup_msgs/s=<..> fill_msgs/s=<..>
 * server_cpu_us/msg=<..> broker_cpu_us/msg=<..> load=<1-min load before>,<after>}: the CPU time the server and (with
 * {@code --broker-pid}) the Tributary broker used from the start of delivery to the Nth message, per message, and details on stderr as lines starting with {@code #}. Exit status 0, or 1 on a failure (a
 * lost or duplicated message included). Single-threaded.
 */
public final class MdbBenchmark {

    static final String ARTEMIS_QUEUE = "MdbBench";
    static final String ARTEMIS_QUEUE_JNDI = "java:/jms/queue/MdbBench";
    static final String TRIBUTARY_TOPIC = "mdbbench";
    private static final String ARTEMIS_FACTORY = "java:/JmsXA";
    private static final String TRIBUTARY_FACTORY = "java:/jms/TributaryConnectionFactory";
    private static final String RAR = "tributary-ra.rar";
    private static final String WAR = "mdb-bench.war";
    private static final String CONTEXT = "mdb-bench";
    /** After the Nth delivery, how long more deliveries (duplicates) are given to show up. */
    private static final Duration SETTLE = Duration.ofSeconds(3);
    /** A phase fails when no message was delivered for this long. */
    private static final Duration STALL = Duration.ofSeconds(120);
    private static final Duration POLL = Duration.ofMillis(100);

    private final Options options;
    private final long deadlineNanos;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private ModelControllerClient management;
    private Admin admin;

    private MdbBenchmark(Options options) {
        this.options = options;
        this.deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.timeoutS);
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: MdbBenchmark tributary|artemis --http HOST:PORT --management HOST:PORT"
                    + " [--bootstrap HOST:PORT] [--rar PATH] [--work DIR] [--messages N] [--warmup N] [--sessions S]"
                    + " [--size BYTES] [--fill-threads T] [--timeout-s S]");
            System.exit(64);
            return;
        }
        int status;
        try {
            status = new MdbBenchmark(options).run();
        } catch (Throwable e) {
            System.err.println("# FAILED: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        // The management and Kafka clients may leave non-daemon threads behind after a failure.
        System.exit(status);
    }

    private boolean tributary() {
        return options.provider.equals("tributary");
    }

    private int run() throws Exception {
        String[] hostPort = options.management.split(":");
        management = ModelControllerClient.Factory.create("remote+http", hostPort[0], Integer.parseInt(hostPort[1]));
        try {
            if (tributary()) {
                Properties config = new Properties();
                config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap);
                admin = Admin.create(config);
            }
            return benchmark();
        } finally {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
            management.close();
        }
    }

    private int benchmark() throws Exception {
        note("provider=%s messages=%d warmup=%d sessions=%d size=%d fill-threads=%d", options.provider,
                options.messages, options.warmup, options.sessions, options.size, options.fillThreads);
        awaitServerRunning();
        if (tributary()) {
            admin.createTopics(List.of(new NewTopic(TRIBUTARY_TOPIC, options.sessions, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
            note("created topic %s with %d partitions", TRIBUTARY_TOPIC, options.sessions);
            deploy(RAR, Path.of(options.rar));
        }
        deploy(WAR, exportWar());
        note("MDB pool: %s", execute(Operations.createReadResourceOperation(
                address("subsystem", "ejb3", "strict-max-bean-instance-pool", "mdb-strict-max-pool"))));

        Phase warmup = options.warmup > 0 ? phase("warmup", options.warmup) : null;
        Phase measured = phase("measured", options.messages);
        System.out.printf(Locale.ROOT, "%s sessions=%d messages=%d msgs/s=%.0f warmup_msgs/s=%s fill_msgs/s=%.0f"
                        + " server_cpu_us/msg=%.0f broker_cpu_us/msg=%.0f load=%s,%s%n", options.provider,
                options.sessions, options.messages, measured.rate(),
                warmup == null ? "-" : String.format(Locale.ROOT, "%.0f", warmup.rate()), measured.fillRate(),
                measured.serverCpuMicros(), measured.brokerCpuMicros(), measured.loadBefore, measured.loadAfter);
        return 0;
    }

    /** One fill-then-consume cycle of {@code count} messages; throws unless exactly those were delivered once. */
    private Phase phase(String name, int count) throws Exception {
        String run = name + "-" + System.currentTimeMillis();
        control("start", Map.of("run", run, "count", count, "size", options.size));
        Map<String, Object> fill = new HashMap<>(Map.of("run", run, "count", count, "size", options.size,
                "threads", options.fillThreads));
        fill.put("factory", tributary() ? TRIBUTARY_FACTORY : ARTEMIS_FACTORY);
        fill.put("queue", tributary() ? TRIBUTARY_TOPIC : ARTEMIS_QUEUE_JNDI);
        Map<String, String> filled = parse(control("fill", fill));
        double fillRate = count / (Long.parseLong(filled.get("nanos")) / 1e9);
        long backlog = backlog();
        note("%s: produced %d messages at %.0f msg/s; backlog %d", name, count, fillRate, backlog);
        if (backlog != count) {
            throw new IllegalStateException(name + ": the backlog is " + backlog + " messages, expected " + count);
        }

        String loadBefore = loadAverage();
        long[] cpuBefore = cpuNanos();
        long[] cpuAfter;
        delivery("start-delivery");
        Map<String, String> status;
        try {
            cpuAfter = awaitDelivered(name, count);
            status = checkExactlyOnce(name, count);
        } finally {
            delivery("stop-delivery");
        }
        String loadAfter = loadAverage();
        long elapsed = Long.parseLong(status.get("lastNanos")) - Long.parseLong(status.get("firstNanos"));
        double rate = count / (elapsed / 1e9);
        // CPU per message, server and broker: the cost that a loaded machine does not distort as much as the rate.
        double serverCpu = (cpuAfter[0] - cpuBefore[0]) / 1e3 / count;
        double brokerCpu = tributary() ? (cpuAfter[1] - cpuBefore[1]) / 1e3 / count : 0;
        note("%s: %s", name, status);
        note("%s: %d messages consumed in %.3f s: %.0f msg/s (load %s -> %s); CPU per message: server %.0f us,"
                + " broker %.0f us", name, count, elapsed / 1e9, rate, loadBefore, loadAfter, serverCpu, brokerCpu);
        awaitBacklogEmpty(name);
        return new Phase(rate, fillRate, loadBefore, loadAfter, serverCpu, brokerCpu);
    }

    private record Phase(double rate, double fillRate, String loadBefore, String loadAfter, double serverCpuMicros,
                         double brokerCpuMicros) {
    }

    /**
     * CPU time used so far by the server (its platform MBean's process-cpu-time) and by the broker process
     * ({@code /proc/<pid>/stat}, user + system clock ticks of 10 ms); 0 where not known.
     */
    private long[] cpuNanos() throws IOException {
        long server = execute(Operations.createReadAttributeOperation(address("core-service", "platform-mbean",
                "type", "operating-system"), "process-cpu-time")).asLong();
        long broker = 0;
        if (options.brokerPid != null) {
            String[] fields = Files.readString(Path.of("/proc", options.brokerPid, "stat"))
                    .replaceFirst("^.*\\) ", "").split(" ");
            // After the command: state is field 3, utime field 14, stime field 15 (proc(5)).
            broker = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L;
        }
        return new long[] {server, broker};
    }

    /** Waits for N deliveries; returns the CPU times at that moment. */
    private long[] awaitDelivered(String name, int count) throws Exception {
        int last = -1;
        long lastProgress = System.nanoTime();
        while (true) {
            Map<String, String> status = parse(status());
            int delivered = Integer.parseInt(status.get("count"));
            if (delivered >= count) {
                return cpuNanos();
            }
            long now = System.nanoTime();
            if (delivered != last) {
                last = delivered;
                lastProgress = now;
            } else if (now - lastProgress > STALL.toNanos()) {
                throw new IllegalStateException(name + ": no delivery for " + STALL.toSeconds() + " s: " + status);
            }
            checkDeadline(name + ": waiting for deliveries, " + status);
            Thread.sleep(POLL.toMillis());
        }
    }

    /** After the Nth delivery: checks that no more come and that each sequence number came once. */
    private Map<String, String> checkExactlyOnce(String name, int count) throws Exception {
        Thread.sleep(SETTLE.toMillis()); // a bounded look for late duplicates, not a wait for a condition
        Map<String, String> status = parse(status());
        boolean exact = Integer.parseInt(status.get("count")) == count
                && Integer.parseInt(status.get("distinct")) == count
                && status.get("duplicates").equals("0") && status.get("outOfRange").equals("0")
                && status.get("foreign").equals("0") && status.get("badBodies").equals("0");
        if (!exact) {
            throw new IllegalStateException(name + ": expected exactly " + count + " distinct deliveries: " + status);
        }
        return status;
    }

    /** Messages waiting for the MDB: the queue's count, or the log end minus the committed offsets. */
    private long backlog() throws Exception {
        if (!tributary()) {
            return execute(Operations.createReadAttributeOperation(address("subsystem", "messaging-activemq",
                    "server", "default", "jms-queue", ARTEMIS_QUEUE), "message-count")).asLong();
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < options.sessions; p++) {
            latest.put(new TopicPartition(TRIBUTARY_TOPIC, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all()
                .get(30, TimeUnit.SECONDS);
        // A queue's receivers share the group named after the queue (docs/jms-mapping.md).
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(TRIBUTARY_TOPIC)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        long backlog = 0;
        List<String> perPartition = new ArrayList<>();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> sorted =
                new java.util.TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        sorted.putAll(ends);
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : sorted.entrySet()) {
            OffsetAndMetadata done = committed.get(end.getKey());
            long lag = end.getValue().offset() - (done == null ? 0 : done.offset());
            backlog += lag;
            perPartition.add(end.getKey().partition() + ":" + lag);
        }
        note("backlog per partition: %s", perPartition);
        return backlog;
    }

    /** After delivery stopped, the provider must know every message as consumed (Artemis may still be acking). */
    private void awaitBacklogEmpty(String name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long backlog;
        while ((backlog = backlog()) != 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + ": " + backlog + " messages still unconsumed after delivery");
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private WebArchive war() {
        // Tributary: the WAR sees the adapter's classes too, as the ITs' WARs do (Deployments). Without it the first
        // send from the servlet's managed-executor thread fails: the Kafka producer's configuration loads classes by
        // name through the thread's context class loader, the WAR's, which does not see the RAR's kafka-clients
        // (ExceptionInInitializerError in ProducerConfig, after which the adapter's producers stay broken).
        String dependencies = tributary() ? "jakarta.jms.api, deployment." + RAR : "jakarta.jms.api";
        return ShrinkWrap.create(WebArchive.class, WAR)
                .addPackage(BenchListener.class.getPackage())
                .addAsWebInfResource(new StringAsset(ejbJarXml()), "ejb-jar.xml")
                .addAsWebInfResource(new StringAsset(jbossEjb3Xml()), "jboss-ejb3.xml")
                .setManifest(new StringAsset("Manifest-Version: 1.0\nDependencies: " + dependencies + "\n"));
    }

    private Path exportWar() throws IOException {
        Path file = Path.of(options.work).resolve(options.provider + "-" + WAR);
        Files.createDirectories(file.getParent());
        war().as(ZipExporter.class).exportTo(file.toFile(), true);
        return file;
    }

    /** The activation config: the only thing besides the adapter binding that differs between the providers. */
    private String ejbJarXml() {
        Map<String, String> activation = new java.util.LinkedHashMap<>();
        activation.put("destinationType", "jakarta.jms.Queue");
        if (tributary()) {
            activation.put("destination", TRIBUTARY_TOPIC);
        } else {
            activation.put("destinationLookup", ARTEMIS_QUEUE_JNDI);
        }
        activation.put("maxSession", Integer.toString(options.sessions));
        StringBuilder properties = new StringBuilder();
        activation.forEach((key, value) -> properties.append("""
                        <activation-config-property>
                          <activation-config-property-name>%s</activation-config-property-name>
                          <activation-config-property-value>%s</activation-config-property-value>
                        </activation-config-property>
                """.formatted(key, value)));
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <ejb-jar xmlns="https://jakarta.ee/xml/ns/jakartaee" version="4.0">
                  <enterprise-beans>
                    <message-driven>
                      <ejb-name>%s</ejb-name>
                      <activation-config>
                %s      </activation-config>
                    </message-driven>
                  </enterprise-beans>
                </ejb-jar>
                """.formatted(BenchListener.NAME, properties);
    }

    /** Tributary: binds the MDB to the stand-alone RAR; Artemis: no binding, the ejb3 subsystem's default adapter. */
    private String jbossEjb3Xml() {
        String binding = !tributary() ? "" : """
                    <r:resource-adapter-binding>
                      <ejb-name>%s</ejb-name>
                      <r:resource-adapter-name>%s</r:resource-adapter-name>
                    </r:resource-adapter-binding>
                """.formatted(BenchListener.NAME, RAR);
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <jboss:ejb-jar xmlns:jboss="urn:jboss:domain:ejb3:4.0" xmlns="https://jakarta.ee/xml/ns/jakartaee"
                               xmlns:r="urn:resource-adapter-binding" version="4.0" impl-version="2.0">
                  <assembly-descriptor>
                %s  </assembly-descriptor>
                </jboss:ejb-jar>
                """.formatted(binding);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Server access

    private void awaitServerRunning() throws Exception {
        ModelNode read = Operations.createReadAttributeOperation(new ModelNode().setEmptyList(), "server-state");
        String state = "unreachable";
        while (true) {
            try {
                ModelNode result = management.execute(read);
                if (Operations.isSuccessfulOutcome(result)) {
                    state = Operations.readResult(result).asString();
                    if (state.equals("running")) {
                        note("server running");
                        return;
                    }
                }
            } catch (IOException e) {
                state = "unreachable (" + e.getMessage() + ")";
            }
            checkDeadline("waiting for the server at " + options.management + ", which is " + state);
            Thread.sleep(500);
        }
    }

    private void deploy(String name, Path file) throws Exception {
        ModelNode add = Operations.createAddOperation(address("deployment", name));
        ModelNode content = new ModelNode();
        content.get("url").set(file.toUri().toString());
        add.get("content").add(content);
        add.get("enabled").set(true);
        execute(add);
        note("deployed %s (%s)", name, file);
    }

    private void delivery(String operation) throws Exception {
        execute(Operations.createOperation(operation, address("deployment", WAR, "subsystem", "ejb3",
                "message-driven-bean", BenchListener.NAME)));
    }

    private ModelNode execute(ModelNode operation) throws IOException {
        ModelNode result = management.execute(operation);
        if (!Operations.isSuccessfulOutcome(result)) {
            throw new IllegalStateException("management operation " + operation.asString() + " failed: "
                    + Operations.getFailureDescription(result).asString());
        }
        return Operations.readResult(result);
    }

    private static ModelNode address(String... pairs) {
        ModelNode address = new ModelNode().setEmptyList();
        for (int i = 0; i < pairs.length; i += 2) {
            address.add(pairs[i], pairs[i + 1]);
        }
        return address;
    }

    private String control(String action, Map<String, ?> parameters) throws Exception {
        StringBuilder query = new StringBuilder();
        parameters.forEach((key, value) -> query.append(query.isEmpty() ? "" : "&").append(key).append('=')
                .append(java.net.URLEncoder.encode(String.valueOf(value), java.nio.charset.StandardCharsets.UTF_8)));
        HttpRequest request = HttpRequest.newBuilder(uri("/bench/" + action + "?" + query))
                .timeout(Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())))
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        return send(request);
    }

    private String status() throws Exception {
        return send(HttpRequest.newBuilder(uri("/bench/status")).timeout(Duration.ofSeconds(30)).GET().build());
    }

    private String send(HttpRequest request) throws Exception {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(request.uri() + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return response.body().trim();
    }

    private URI uri(String path) {
        return URI.create("http://" + options.http + "/" + CONTEXT + path);
    }

    private static Map<String, String> parse(String line) {
        Map<String, String> values = new HashMap<>();
        for (String pair : line.trim().split("\\s+")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                values.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return values;
    }

    private void checkDeadline(String what) {
        if (System.nanoTime() - deadlineNanos > 0) {
            throw new IllegalStateException("--timeout-s " + options.timeoutS + " s reached " + what);
        }
    }

    /** The 1-minute load average, or "?" where /proc/loadavg does not exist. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    private static void note(String format, Object... args) {
        System.err.printf(Locale.ROOT, "# " + format + "%n", args);
    }

    /** The command line. */
    private static final class Options {
        String provider;
        String http;
        String management;
        String bootstrap;
        String rar;
        String brokerPid;
        String work = "target/mdb-benchmark";
        int messages = 20_000;
        int warmup = 5_000;
        int sessions = 15;
        int size = 1024;
        int fillThreads = 4;
        long timeoutS = 1_800;

        static Options parse(String[] args) {
            Options o = new Options();
            if (args.length < 1) {
                throw new IllegalArgumentException("the provider (tributary or artemis) is missing");
            }
            o.provider = args[0];
            if (!o.provider.equals("tributary") && !o.provider.equals("artemis")) {
                throw new IllegalArgumentException("unknown provider " + o.provider);
            }
            for (int i = 1; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                String value = args[++i];
                switch (name) {
                    case "--http" -> o.http = value;
                    case "--management" -> o.management = value;
                    case "--bootstrap" -> o.bootstrap = value;
                    case "--rar" -> o.rar = value;
                    case "--broker-pid" -> o.brokerPid = value;
                    case "--work" -> o.work = value;
                    case "--messages" -> o.messages = positive(name, value);
                    case "--warmup" -> o.warmup = Math.max(0, Integer.parseInt(value));
                    case "--sessions" -> o.sessions = positive(name, value);
                    case "--size" -> o.size = positive(name, value);
                    case "--fill-threads" -> o.fillThreads = positive(name, value);
                    case "--timeout-s" -> o.timeoutS = positive(name, value);
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            if (o.http == null || o.management == null) {
                throw new IllegalArgumentException("--http and --management are required");
            }
            if (o.provider.equals("tributary") && (o.bootstrap == null || o.rar == null)) {
                throw new IllegalArgumentException("tributary needs --bootstrap and --rar");
            }
            return o;
        }

        private static int positive(String name, String value) {
            int n = Integer.parseInt(value);
            if (n < 1) {
                throw new IllegalArgumentException(name + " must be at least 1: " + value);
            }
            return n;
        }
    }
}
