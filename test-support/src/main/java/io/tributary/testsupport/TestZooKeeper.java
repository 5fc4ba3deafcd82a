package io.tributary.testsupport;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * The tests' ZooKeeper: Curator's {@link TestingServer} in the test JVM, on a free port ({@link FreePorts}: never one the
 * build reserved for a server that starts later), with a 500 ms tick.
 * ZooKeeper grants sessions of 2 to 20 ticks, so 1 to 10 s: the brokers' 6 s as asked, and a test's shorter one for
 * a quick expiry; a longer one is cut to 10 s.
 */
public final class TestZooKeeper {

    private TestZooKeeper() {
    }

    /** A started ZooKeeper; the caller closes it. */
    public static TestingServer start() throws Exception {
        return new TestingServer(new InstanceSpec(null, FreePorts.next(), -1, -1, true, -1, 500, -1), true);
    }
}
