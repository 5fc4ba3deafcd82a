package io.tributary.ra.outbound;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.resource.spi.ManagedConnection;

import io.tributary.jms.TributaryQueue;
import io.tributary.jms.kafka.XaLog;
import io.tributary.jms.kafka.XaLogRecord.XaXid;
import io.tributary.testsupport.ChildJvm;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The managed connection's XAResource on a real broker, driven as a transaction manager would: a prepared branch
 * holds its sends and consumed offsets in an open Kafka transaction (written, invisible to read_committed), commit
 * makes them visible together, rollback drops them and delivers the consumed message again; a branch prepared
 * before the "server" dies (its managed connections closed without commit, the prepared producer dropped without a
 * word to the coordinator) is listed by a new XAResource's {@code recover()} and committed or rolled back from there.
 */
class XaResourceTest {

    private static final long WAIT_MS = 20_000;
    private static final AtomicInteger XIDS = new AtomicInteger();

    @TempDir
    static Path dir;
    private static OutboundCluster cluster;
    private static Admin admin;

    private final List<ManagedConnection> opened = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new OutboundCluster(dir);
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        admin = Admin.create(properties);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        admin.close();
        cluster.close();
    }

    @AfterEach
    void destroyConnections() throws Exception {
        for (ManagedConnection connection : opened) {
            connection.destroy();
        }
    }

    /** A managed connection of the adapter, as the container's pool makes one, with the application's handle. */
    private ManagedConnection managed() throws Exception {
        ManagedConnection connection = cluster.managedConnectionFactory().createManagedConnection(null, null);
        opened.add(connection);
        return connection;
    }

    private static Xid newXid() {
        int n = XIDS.incrementAndGet();
        return new XaXid(4242, ("gtrid-" + n + "-" + System.nanoTime()).getBytes(StandardCharsets.UTF_8),
                ("bqual-" + n).getBytes(StandardCharsets.UTF_8));
    }

    private void sendNow(Queue queue, String text) throws Exception {
        try (Connection connection = cluster.observer().createConnection()) {
            Session session = connection.createSession();
            session.createProducer(queue).send(session.createTextMessage(text));
        }
    }

    /**
     * The work of an MDB-like branch on {@code managed}: receives one message from {@code in} and sends a reply
     * to {@code out}, between start and end of {@code xid}. Returns the received text.
     */
    private static String receiveAndReply(ManagedConnection managed, Xid xid, int flags, Queue in, Queue out)
            throws Exception {
        XAResource xa = managed.getXAResource();
        xa.start(xid, flags);
        Connection connection = (Connection) managed.getConnection(null, null);
        connection.start();
        Session session = connection.createSession();
        MessageConsumer consumer = session.createConsumer(in);
        Message received = consumer.receive(WAIT_MS);
        assertNotNull(received, "a message from " + in);
        String text = ((TextMessage) received).getText();
        session.createProducer(out).send(session.createTextMessage("reply to " + text));
        xa.end(xid, XAResource.TMSUCCESS);
        return text;
    }

    private static long endOffset(String topic, IsolationLevel isolation) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        return admin.listOffsets(Map.of(partition, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
                .partitionResult(partition).get(30, TimeUnit.SECONDS).offset();
    }

    /** The queue's committed offset of partition 0 (its group is named after the queue), or -1 for none. */
    private static long committed(String queue) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(queue)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        OffsetAndMetadata offset = offsets.get(new TopicPartition(queue, 0));
        return offset == null ? -1 : offset.offset();
    }

    private static List<String> texts(Queue queue, int count) throws Exception {
        try (Connection connection = cluster.observer().createConnection()) {
            MessageConsumer consumer = connection.createSession().createConsumer(queue);
            connection.start();
            List<String> texts = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Message message = consumer.receive(WAIT_MS);
                texts.add(message == null ? null : ((TextMessage) message).getText());
            }
            return texts;
        }
    }

    @Test
    void aPreparedBranchHoldsItsWritesInvisibleUntilCommitMakesThemVisibleTogether() throws Exception {
        Queue in = TributaryQueue.of("xa.commit.in");
        Queue out = TributaryQueue.of("xa.commit.out");
        sendNow(in, "m1");
        sendNow(out, "before");
        ManagedConnection connection = managed();
        Xid xid = newXid();

        assertEquals("m1", receiveAndReply(connection, xid, XAResource.TMNOFLAGS, in, out));
        assertEquals(XAResource.XA_OK, connection.getXAResource().prepare(xid));
        assertEquals(2, endOffset("xa.commit.out", IsolationLevel.READ_UNCOMMITTED), "the reply is written...");
        assertEquals(1, endOffset("xa.commit.out", IsolationLevel.READ_COMMITTED), "...in an open transaction");
        assertEquals(-1, committed("xa.commit.in"), "no offset committed before the commit");

        connection.getXAResource().commit(xid, false);
        OutboundCluster.await("the reply visible to read_committed",
                () -> endOffset("xa.commit.out", IsolationLevel.READ_COMMITTED) == 3); // with the commit marker
        assertEquals(1, committed("xa.commit.in"), "m1's offset committed with the reply");
        assertEquals(List.of("before", "reply to m1"), texts(out, 2));
        assertArrayEquals(new Xid[0], connection.getXAResource().recover(XAResource.TMSTARTRSCAN
                | XAResource.TMENDRSCAN), "nothing in doubt after the commit");
    }

    @Test
    void aRolledBackPreparedBranchPublishesNothingAndItsMessageComesAgain() throws Exception {
        Queue in = TributaryQueue.of("xa.rollback.in");
        Queue out = TributaryQueue.of("xa.rollback.out");
        sendNow(in, "m1");
        ManagedConnection managed = managed();
        XAResource xa = managed.getXAResource();
        Connection connection = (Connection) managed.getConnection(null, null);
        connection.start();
        Session session = connection.createSession();
        MessageConsumer consumer = session.createConsumer(in);

        Xid xid = newXid();
        xa.start(xid, XAResource.TMNOFLAGS);
        assertEquals("m1", ((TextMessage) consumer.receive(WAIT_MS)).getText());
        session.createProducer(out).send(session.createTextMessage("discarded"));
        xa.end(xid, XAResource.TMSUCCESS);
        assertEquals(XAResource.XA_OK, xa.prepare(xid));
        xa.rollback(xid);
        OutboundCluster.await("the aborted transaction's marker",
                () -> endOffset("xa.rollback.out", IsolationLevel.READ_COMMITTED)
                        == endOffset("xa.rollback.out", IsolationLevel.READ_UNCOMMITTED));
        assertEquals(-1, committed("xa.rollback.in"));

        Xid again = newXid();
        xa.start(again, XAResource.TMNOFLAGS);
        Message redelivered = consumer.receive(WAIT_MS);
        assertEquals("m1", ((TextMessage) redelivered).getText(), "delivered again after the rollback");
        assertTrue(redelivered.getJMSRedelivered());
        session.createProducer(out).send(session.createTextMessage("kept"));
        xa.end(again, XAResource.TMSUCCESS);
        xa.commit(again, true);
        assertEquals(List.of("kept"), texts(out, 1), "only the committed branch's reply");
        assertEquals(1, committed("xa.rollback.in"));
    }

    @Test
    void onePhaseCommitWritesNoPreparedRecord() throws Exception {
        Queue in = TributaryQueue.of("xa.onephase.in");
        Queue out = TributaryQueue.of("xa.onephase.out");
        sendNow(in, "m1");
        ManagedConnection connection = managed();
        connection.getXAResource().recover(XAResource.TMSTARTRSCAN); // creates the XA log topic
        long logEnd = cluster.endOffset(XaLog.DEFAULT_TOPIC);
        Xid xid = newXid();

        receiveAndReply(connection, xid, XAResource.TMNOFLAGS, in, out);
        connection.getXAResource().commit(xid, true);
        assertEquals(List.of("reply to m1"), texts(out, 1));
        assertEquals(1, committed("xa.onephase.in"));
        assertEquals(logEnd, cluster.endOffset(XaLog.DEFAULT_TOPIC), "nothing written to the XA log");
    }

    @Test
    void aBranchThatWritesNothingIsReadOnly() throws Exception {
        ManagedConnection connection = managed();
        Xid xid = newXid();
        XAResource xa = connection.getXAResource();
        xa.start(xid, XAResource.TMNOFLAGS);
        ((Connection) connection.getConnection(null, null)).createSession().createTextMessage("unsent");
        xa.end(xid, XAResource.TMSUCCESS);
        assertEquals(XAResource.XA_RDONLY, xa.prepare(xid));
    }

    @Test
    void twoConnectionsOfTheClusterAreOneResourceManagerAndAJoinedBranchCommitsTogether() throws Exception {
        Queue out = TributaryQueue.of("xa.join.out");
        ManagedConnection first = managed();
        ManagedConnection second = managed();
        assertTrue(first.getXAResource().isSameRM(second.getXAResource()));
        Xid xid = newXid();

        first.getXAResource().start(xid, XAResource.TMNOFLAGS);
        Session one = ((Connection) first.getConnection(null, null)).createSession();
        one.createProducer(out).send(one.createTextMessage("from the first"));
        first.getXAResource().end(xid, XAResource.TMSUCCESS);
        second.getXAResource().start(xid, XAResource.TMJOIN);
        Session two = ((Connection) second.getConnection(null, null)).createSession();
        two.createProducer(out).send(two.createTextMessage("from the second"));
        second.getXAResource().end(xid, XAResource.TMSUCCESS);

        assertEquals(XAResource.XA_OK, first.getXAResource().prepare(xid));
        assertEquals(0, endOffset("xa.join.out", IsolationLevel.READ_COMMITTED));
        first.getXAResource().commit(xid, false);
        assertEquals(List.of("from the first", "from the second"), texts(out, 2));
    }

    @Test
    void theXaLogIsTheTopicTheFactoryNames() throws Exception {
        Queue out = TributaryQueue.of("xa.logtopic.out");
        TributaryManagedConnectionFactory factory = cluster.managedConnectionFactory();
        factory.setXaLogTopic("xa-log-of-another-app");
        ManagedConnection connection = factory.createManagedConnection(null, null);
        opened.add(connection);
        XAResource xa = connection.getXAResource();
        assertFalse(xa.isSameRM(managed().getXAResource()), "another XA log, another resource manager");
        Xid xid = newXid();
        xa.start(xid, XAResource.TMNOFLAGS);
        Session session = ((Connection) connection.getConnection(null, null)).createSession();
        session.createProducer(out).send(session.createTextMessage("m"));
        xa.end(xid, XAResource.TMSUCCESS);

        assertEquals(XAResource.XA_OK, xa.prepare(xid));
        assertTrue(cluster.topics().contains("xa-log-of-another-app"));
        assertEquals(1, cluster.endOffset("xa-log-of-another-app"), "the PREPARED record");
        xa.commit(xid, false);
        assertEquals(2, cluster.endOffset("xa-log-of-another-app"), "and its tombstone");
        assertEquals(List.of("m"), texts(out, 1));
    }

    @Test
    void aBranchPreparedBeforeACrashIsRecoveredAndCommitted() throws Exception {
        crashAfterPrepareThenDecide("xa.crash.commit", true, false);
    }

    @Test
    void aBranchPreparedBeforeACrashIsRecoveredAndRolledBack() throws Exception {
        crashAfterPrepareThenDecide("xa.crash.rollback", false, false);
    }

    /** IronJacamar destroys its recovery connection after the scan; Narayana decides through its resource later. */
    @Test
    void aBranchFoundByARecoveryScanIsDecidedThroughTheResourceOfTheScansConnectionAfterItWasDestroyed()
            throws Exception {
        crashAfterPrepareThenDecide("xa.crash.scanner", true, true);
    }

    @Test
    void aBranchPreparedByAServerThatIsKilledIsRecoveredAndCommittedByItsSuccessor() throws Exception {
        Queue in = TributaryQueue.of("xa.kill.in");
        Queue out = TributaryQueue.of("xa.kill.out");
        sendNow(in, "m1");
        String gtrid = "killed-" + System.nanoTime();
        ChildJvm server = new ChildJvm(dir.resolve("xa-prepare.log"), XaPrepareMain.class,
                cluster.bootstrapServers(), "xa.kill.in", "xa.kill.out", gtrid);
        try {
            server.start().awaitLine("PREPARED", Duration.ofSeconds(90));
            assertTrue(server.output().contains("VOTE " + XAResource.XA_OK), server.tail());
        } finally {
            server.kill(); // SIGKILL: no close, no abort
        }
        assertEquals(0, endOffset("xa.kill.out", IsolationLevel.READ_COMMITTED), "still prepared");
        assertEquals(1, endOffset("xa.kill.out", IsolationLevel.READ_UNCOMMITTED), "the reply, in the transaction");

        Xid prepared = new XaXid(4242, gtrid.getBytes(StandardCharsets.UTF_8), new byte[] {7});
        XAResource recovery = managed().getXAResource();
        assertArrayEquals(new Xid[] {prepared}, recovery.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN));
        recovery.commit(prepared, false);
        assertEquals(List.of("reply to m1"), texts(out, 1));
        OutboundCluster.await("m1's offset committed", () -> committed("xa.kill.in") == 1);
        assertArrayEquals(new Xid[0], recovery.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN));
    }

    @Test
    void aRestartedServerWithTheSamePrefixKeepsOffTheTransactionalIdOfAPreparedBranch() throws Exception {
        Queue out = TributaryQueue.of("xa.prefix.out");
        TributaryManagedConnectionFactory factory = cluster.managedConnectionFactory();
        factory.setTransactionalIdPrefix("restarted-app");
        ManagedConnection before = factory.createManagedConnection(null, null);
        Xid first = newXid();
        sendInBranch(before, first, out, "prepared before the crash");
        assertEquals(XAResource.XA_OK, before.getXAResource().prepare(first));
        before.destroy(); // the server dies; its prepared transaction is on restarted-app-xa-0

        ManagedConnection after = factory.createManagedConnection(null, null);
        opened.add(after);
        Xid second = newXid();
        sendInBranch(after, second, out, "sent after the restart");
        assertEquals(XAResource.XA_OK, after.getXAResource().prepare(second), "on another transactional id");
        after.getXAResource().commit(second, false);

        assertArrayEquals(new Xid[] {first}, after.getXAResource().recover(XAResource.TMSTARTRSCAN),
                "the first branch is still prepared: its transaction was not aborted by the new producer");
        after.getXAResource().commit(first, false);
        assertEquals(List.of("prepared before the crash", "sent after the restart"),
                texts(out, 2).stream().sorted().toList());
    }

    private static void sendInBranch(ManagedConnection managed, Xid xid, Queue queue, String text) throws Exception {
        managed.getXAResource().start(xid, XAResource.TMNOFLAGS);
        Session session = ((Connection) managed.getConnection(null, null)).createSession();
        session.createProducer(queue).send(session.createTextMessage(text));
        managed.getXAResource().end(xid, XAResource.TMSUCCESS);
    }

    private void crashAfterPrepareThenDecide(String name, boolean commit, boolean scannerDestroyed)
            throws Exception {
        Queue in = TributaryQueue.of(name + ".in");
        Queue out = TributaryQueue.of(name + ".out");
        sendNow(in, "m1");
        Xid xid = newXid();
        ManagedConnection crashing = managed();
        receiveAndReply(crashing, xid, XAResource.TMNOFLAGS, in, out);
        assertEquals(XAResource.XA_OK, crashing.getXAResource().prepare(xid));
        // The server dies: its connections go without commit; the prepared producer is dropped without aborting.
        crashing.destroy();
        opened.remove(crashing);
        assertEquals(0, endOffset(name + ".out", IsolationLevel.READ_COMMITTED), "still prepared");

        ManagedConnection restarted = managed();
        XAResource recovery = restarted.getXAResource();
        Xid[] inDoubt = recovery.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
        assertArrayEquals(new Xid[] {xid}, inDoubt, "exactly the prepared branch");
        assertFalse(List.of(recovery.recover(XAResource.TMNOFLAGS)).contains(xid), "listed once per scan");
        if (scannerDestroyed) {
            restarted.destroy();
            opened.remove(restarted);
        }

        if (commit) {
            recovery.commit(inDoubt[0], false);
            assertEquals(List.of("reply to m1"), texts(out, 1));
            OutboundCluster.await("m1's offset committed", () -> committed(name + ".in") == 1);
        } else {
            recovery.rollback(inDoubt[0]);
            OutboundCluster.await("the abort marker",
                    () -> endOffset(name + ".out", IsolationLevel.READ_COMMITTED)
                            == endOffset(name + ".out", IsolationLevel.READ_UNCOMMITTED));
            assertEquals(0, endOffset(name + ".out", IsolationLevel.READ_UNCOMMITTED)
                    - endOffset(name + ".out", IsolationLevel.READ_COMMITTED));
            assertEquals(-1, committed(name + ".in"));
            assertEquals(List.of("m1"), texts(in, 1), "m1 is still to be consumed");
        }
        assertArrayEquals(new Xid[0], recovery.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN),
                "nothing in doubt once decided");
    }
}
