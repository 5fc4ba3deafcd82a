package io.tributary.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Ports that nothing listens on now, for the tests' own servers (ZooKeeper, a broker process), never one of the ports
 * that the build reserved for something that starts later: a build that reserves ports (build-helper's
 * {@code reserve-network-port}) and only binds them minutes later (an application server's listeners) lists them in
 * the system property {@value #RESERVED_PROPERTY}, comma-separated. The operating system hands out a freed ephemeral
 * port again, so without that list a test's ZooKeeper could take a port a server then finds taken.
 */
public final class FreePorts {

    /** The system property naming the ports the build keeps for later, comma-separated. */
    public static final String RESERVED_PROPERTY = "tributary.test.reserved.ports";

    private FreePorts() {
    }

    /** A port nothing listens on now and that the build has not reserved. */
    public static int next() {
        Set<Integer> reserved = reserved();
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ephemeral();
            if (!reserved.contains(port)) {
                return port;
            }
        }
        throw new IllegalStateException("No free port outside the reserved " + reserved + " in 100 attempts");
    }

    private static int ephemeral() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<Integer> reserved() {
        return Arrays.stream(System.getProperty(RESERVED_PROPERTY, "").split(","))
                .map(String::strip)
                .filter(port -> !port.isEmpty())
                .map(Integer::valueOf)
                .collect(Collectors.toUnmodifiableSet());
    }
}
