package io.tributary.broker.cluster;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import io.tributary.testsupport.TestZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real ZooKeeper per test class (starting one takes a while), and a chroot of its own for every test, so that
 * tests do not see each other's znodes.
 */
abstract class ZooKeeperTestBase {

    private static final AtomicInteger CHROOTS = new AtomicInteger();

    static TestingServer zooKeeper;
    /** A client without chroot, to look at znodes as they are in the ensemble. */
    static CuratorFramework inspector;

    @TempDir
    Path dir;

    /** This test's chroot, such as {@code /test7}, and the connect string with it. */
    String chroot;
    String connect;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zooKeeper = TestZooKeeper.start();
        inspector = ClusterTestSupport.client(zooKeeper.getConnectString());
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        inspector.close();
        zooKeeper.close();
    }

    @BeforeEach
    void useOwnChroot() {
        chroot = newChroot();
        connect = zooKeeper.getConnectString() + chroot;
    }

    static String newChroot() {
        return "/test" + CHROOTS.incrementAndGet();
    }
}
