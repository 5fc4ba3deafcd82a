package io.tributary.broker.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Utils;

/**
 * The memory a broker holds for idle client connections: opens {@code count} TCP connections to one broker, sends an
 * ApiVersions request on each and reads its answer (so the broker has set the connection up as a real client's),
 * then leaves them idle and reads the broker's resident set size ({@code VmRSS} of {@code /proc/PID/status}) and,
 * after a full collection asked through {@code jcmd PID GC.run}, its heap in use ({@code GC.heap_info}). The same
 * numbers before the connections open and after they close again give the cost per connection.
 *
 * <pre>
 *   IdleConnectionsBenchmark HOST:PORT COUNT BROKER_PID LABEL
 * </pre>
 * Prints {@code idle-connections label=... count=... rss_before_mib=... rss_open_mib=... rss_closed_mib=...
 * heap_before_mib=... heap_open_mib=... per_connection_kib=...} on one line (per connection: the RSS difference while
 * open), plus "#" lines as it goes. Needs {@code ulimit -n} above COUNT in this process and the broker's.
 */
public final class IdleConnectionsBenchmark {

    private static final int SETTLE_SECONDS = 5;

    private IdleConnectionsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: IdleConnectionsBenchmark HOST:PORT COUNT BROKER_PID LABEL");
            System.exit(2);
        }
        InetSocketAddress broker = new InetSocketAddress(Utils.getHost(args[0]), Utils.getPort(args[0]));
        int count = Integer.parseInt(args[1]);
        long pid = Long.parseLong(args[2]);
        String label = args[3];

        long heapBefore = heapAfterGc(pid);
        long rssBefore = rss(pid);
        System.out.printf("# %s: before: rss %d MiB, heap after GC %d MiB%n", label, mib(rssBefore), mib(heapBefore));

        List<SocketChannel> connections = new ArrayList<>(count);
        long started = System.nanoTime();
        try {
            for (int i = 0; i < count; i++) {
                connections.add(openAndAsk(broker, i));
                if ((i + 1) % 2_000 == 0) {
                    System.out.printf("# %s: %d connections open%n", label, i + 1);
                }
            }
            long openMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            TimeUnit.SECONDS.sleep(SETTLE_SECONDS); // a benchmark, not a test: let the broker settle
            long rssOpen = rss(pid);
            long heapOpen = heapAfterGc(pid);
            long rssOpenAfterGc = rss(pid);
            System.out.printf("# %s: %d open in %d ms: rss %d MiB (%d MiB after GC), heap after GC %d MiB%n", label,
                    count, openMs, mib(rssOpen), mib(rssOpenAfterGc), mib(heapOpen));

            for (SocketChannel connection : connections) {
                connection.close();
            }
            connections.clear();
            TimeUnit.SECONDS.sleep(SETTLE_SECONDS);
            long heapClosed = heapAfterGc(pid);
            long rssClosed = rss(pid);
            System.out.printf("idle-connections label=%s count=%d open_ms=%d rss_before_mib=%d rss_open_mib=%d"
                            + " rss_closed_mib=%d heap_before_mib=%d heap_open_mib=%d heap_closed_mib=%d"
                            + " rss_per_connection_kib=%.1f heap_per_connection_kib=%.1f%n",
                    label, count, openMs, mib(rssBefore), mib(rssOpen), mib(rssClosed), mib(heapBefore),
                    mib(heapOpen), mib(heapClosed), (rssOpen - rssBefore) / 1024.0 / count,
                    (heapOpen - heapBefore) / 1024.0 / count);
        } finally {
            for (SocketChannel connection : connections) {
                connection.close();
            }
        }
    }

    private static SocketChannel openAndAsk(InetSocketAddress broker, int correlationId) throws IOException {
        SocketChannel channel = SocketChannel.open(broker);
        try {
            short version = ApiKeys.API_VERSIONS.latestVersion();
            ApiVersionsRequest request = new ApiVersionsRequest(new ApiVersionsRequestData()
                    .setClientSoftwareName("idle-connections-benchmark").setClientSoftwareVersion("1"), version);
            ByteBuffer body = request.serializeWithHeader(
                    new RequestHeader(ApiKeys.API_VERSIONS, version, "idle-" + correlationId, correlationId));
            ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining()).putInt(body.remaining()).put(body).flip();
            while (frame.hasRemaining()) {
                channel.write(frame);
            }
            ByteBuffer size = ByteBuffer.allocate(4);
            readFully(channel, size);
            readFully(channel, ByteBuffer.allocate(size.flip().getInt()));
            return channel;
        } catch (IOException e) {
            channel.close();
            throw new IOException("connection " + correlationId + " to " + broker + ": " + e.getMessage(), e);
        }
    }

    private static void readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException("the broker closed the connection");
            }
        }
    }

    /** Resident set size in bytes. */
    private static long rss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS for process " + pid);
    }

    /** Heap in use after a full collection, in bytes, from jcmd (G1's "used" of the total line). */
    private static long heapAfterGc(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        String info = jcmd(pid, "GC.heap_info");
        Matcher used = Pattern.compile("total \\d+K, used (\\d+)K").matcher(info);
        if (!used.find()) {
            throw new IOException("cannot read the heap in use from: " + info);
        }
        return Long.parseLong(used.group(1)) * 1024;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path javaHome = Path.of(System.getProperty("java.home"));
        Process process = new ProcessBuilder(javaHome.resolve("bin/jcmd").toString(), Long.toString(pid), command)
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " " + command + " failed: " + output);
        }
        return output;
    }

    private static long mib(long bytes) {
        return bytes / (1024 * 1024);
    }
}
