package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.jms.Connection;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.InvalidClientIDRuntimeException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Session;

import io.tributary.jms.kafka.ClientIdAssignor;
import io.tributary.testsupport.TributaryClusterExtension;
import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client ids are unique across the cluster (Jakarta Messaging 3.1 §6.1.2), on a real broker: a client id that a live
 * connection holds is refused to every other connection, whether set with {@code setClientID} or configured on the
 * factory, in the classic and the simplified API, until the holder closes; of claimants racing for one client id
 * exactly one wins; and only a connection with a client id joins a claim group. A holder killed without closing is
 * {@link ClientIdCrashTest}'s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientIdUniquenessTest {

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();
    private TributaryConnectionFactory factory;
    private final AtomicInteger ids = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    private String clientId() {
        return "client-" + ids.incrementAndGet();
    }

    @Test
    void aClientIdHeldByALiveConnectionIsRefusedToAnotherUntilTheHolderCloses() throws Exception {
        String clientId = clientId();
        Connection holder = factory.createConnection();
        holder.setClientID(clientId);
        try (Connection other = factory.createConnection()) {
            InvalidClientIDException refused = assertThrows(InvalidClientIDException.class,
                    () -> other.setClientID(clientId));
            assertTrue(refused.getMessage().contains("'" + clientId + "'"), refused.getMessage());
            assertNull(other.getClientID(), "a refused client id is not set");
            other.setClientID(clientId + "-other"); // and the connection may still take another one
        }
        assertEquals(clientId, holder.getClientID());
        holder.close();
        try (Connection successor = factory.createConnection()) {
            successor.setClientID(clientId);
            assertEquals(clientId, successor.getClientID());
        }
    }

    @Test
    void inTheSimplifiedApiAClientIdInUseIsAnInvalidClientIDRuntimeException() {
        String clientId = clientId();
        TributaryConnectionFactory configured = TestConnectionFactory.create(cluster.bootstrapServers());
        configured.setClientId(clientId);
        try (JMSContext holder = factory.createContext()) {
            holder.setClientID(clientId);
            try (JMSContext other = factory.createContext()) {
                InvalidClientIDRuntimeException refused = assertThrows(InvalidClientIDRuntimeException.class,
                        () -> other.setClientID(clientId));
                assertTrue(refused.getMessage().contains("'" + clientId + "'"), refused.getMessage());
            }
            assertThrows(InvalidClientIDRuntimeException.class, configured::createContext);
            try (JMSContext shared = holder.createContext(JMSContext.AUTO_ACKNOWLEDGE)) {
                assertEquals(clientId, shared.getClientID(), "contexts made from a context share its connection");
            }
        }
        try (JMSContext successor = configured.createContext()) {
            assertEquals(clientId, successor.getClientID());
        }
    }

    @Test
    void aClientIdConfiguredOnTheFactoryIsClaimedWhenTheConnectionIsCreated() throws Exception {
        String clientId = clientId();
        TributaryConnectionFactory configured = TestConnectionFactory.create(cluster.bootstrapServers());
        configured.setClientId(clientId);
        try (Connection holder = configured.createConnection()) {
            assertEquals(clientId, holder.getClientID());
            InvalidClientIDException refused = assertThrows(InvalidClientIDException.class,
                    configured::createConnection);
            assertTrue(refused.getMessage().contains("'" + clientId + "'"), refused.getMessage());
            assertThrows(InvalidClientIDException.class, configured::createQueueConnection);
            try (Connection other = factory.createConnection()) {
                assertThrows(InvalidClientIDException.class, () -> other.setClientID(clientId));
            }
        }
        try (Connection holder = factory.createConnection()) {
            holder.setClientID(clientId);
            assertThrows(InvalidClientIDException.class, configured::createConnection,
                    "a factory's client id held through setClientID elsewhere");
        }
    }

    @Test
    void aHeldClientIdStaysHeldWhileItsConnectionIdlesPastTheSessionTimeout() throws Exception {
        String clientId = clientId();
        try (Connection holder = factory.createConnection()) {
            holder.setClientID(clientId);
            // TestConnectionFactory's session timeout is 6 s: the claim must keep its membership alive by itself.
            Waits.await("client id " + clientId + " refused to others for 8 s while its holder idles")
                    .during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(30))
                    .until(() -> refused(clientId));
        }
    }

    @Test
    void ofConnectionsClaimingOneClientIdAtOnceExactlyOneHoldsIt() throws Exception {
        ExecutorService claimants = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 3; round++) {
                String clientId = clientId();
                CyclicBarrier together = new CyclicBarrier(3);
                List<Future<Connection>> outcomes = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    outcomes.add(claimants.submit(() -> {
                        Connection connection = factory.createConnection();
                        together.await(30, TimeUnit.SECONDS);
                        return claimOn(connection, clientId);
                    }));
                }
                List<Connection> holders = new ArrayList<>();
                for (Future<Connection> outcome : outcomes) {
                    Connection connection = outcome.get(60, TimeUnit.SECONDS);
                    if (connection != null) {
                        holders.add(connection);
                    }
                }
                try {
                    assertEquals(1, holders.size(), "holders of " + clientId + " in round " + round);
                    assertTrue(refused(clientId), "the winner still holds " + clientId);
                } finally {
                    for (Connection holder : holders) {
                        holder.close();
                    }
                }
            }
        } finally {
            claimants.shutdownNow();
        }
    }

    @Test
    void onlyAConnectionWithAClientIdJoinsAClaimGroupAndTheGroupIsNoSubscription() throws Exception {
        String clientId = clientId();
        try (Connection anonymous = factory.createConnection()) {
            anonymous.createSession(Session.AUTO_ACKNOWLEDGE).createProducer(null);
            assertEquals(Map.of(), claimGroupsWithMembers(), "claims made by a connection without a client id");
        }
        String groupId = ClientIdAssignor.groupId(clientId);
        try (Connection holder = factory.createConnection()) {
            holder.setClientID(clientId);
            ConsumerGroupDescription group = describe(groupId);
            assertEquals(1, group.members().size(), group.toString());
            assertEquals(ClientIdAssignor.NAME, group.partitionAssignor(), group.toString());
            Session session = holder.createSession(Session.AUTO_ACKNOWLEDGE);
            assertThrows(InvalidDestinationException.class, () -> session.unsubscribe(clientId),
                    "no durable subscription of " + clientId + " exists");
        }
        ConsumerGroupDescription after = describe(groupId);
        assertTrue(after.members().isEmpty(), "the claim left its group at close: " + after);
    }

    private static ConsumerGroupDescription describe(String groupId) throws Exception {
        try (Admin admin = cluster.admin()) {
            return admin.describeConsumerGroups(List.of(groupId)).all().get(30, TimeUnit.SECONDS).get(groupId);
        }
    }

    /** Whether a new connection is refused {@code clientId}; one that gets it gives it back at once. */
    private boolean refused(String clientId) throws JMSException {
        Connection holder = claimOn(factory.createConnection(), clientId);
        if (holder == null) {
            return true;
        }
        holder.close();
        return false;
    }

    /** {@code connection} holding {@code clientId}, or null (the connection closed) if it is refused. */
    static Connection claimOn(Connection connection, String clientId) throws JMSException {
        try {
            connection.setClientID(clientId);
            return connection;
        } catch (InvalidClientIDException e) {
            connection.close();
            return null;
        }
    }

    /** The claim groups that have members, with them; the other tests' claims are closed by now. */
    private static Map<String, ConsumerGroupDescription> claimGroupsWithMembers() throws Exception {
        try (Admin admin = cluster.admin()) {
            Collection<GroupListing> groups = admin.listGroups().all().get(30, TimeUnit.SECONDS);
            List<String> claimGroups = groups.stream().map(GroupListing::groupId)
                    .filter(id -> id.startsWith(ClientIdAssignor.groupId(""))).toList();
            Map<String, ConsumerGroupDescription> withMembers = new HashMap<>(
                    admin.describeConsumerGroups(claimGroups).all().get(30, TimeUnit.SECONDS));
            withMembers.values().removeIf(group -> group.members().isEmpty());
            return withMembers;
        }
    }
}
