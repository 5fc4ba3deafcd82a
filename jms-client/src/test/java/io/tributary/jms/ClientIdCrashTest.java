package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import jakarta.jms.Connection;
import jakarta.jms.InvalidClientIDException;

import io.tributary.testsupport.ChildJvm;
import io.tributary.testsupport.TributaryClusterExtension;
import io.tributary.testsupport.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client id held by a process that is killed without closing its connection ({@link ClientIdHolderMain}) is
 * refused to this process while the holder lives, and becomes free once the group coordinator drops the dead member
 * (its session timeout, or the claim's rebalance timeout once a new claimant joins). A holder frozen (SIGSTOP) while
 * another connection claims loses the client id to it, and is told so when it runs again.
 */
class ClientIdCrashTest {

    private static final Duration CHILD_START = Duration.ofSeconds(90);
    /** The session timeout (6 s with TestConnectionFactory), a claim's own wait, and a loaded machine. */
    private static final Duration FREED_WITHIN = Duration.ofSeconds(60);

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker();

    @Test
    void aClientIdHeldByAKilledProcessIsFreedWhenItsClaimExpires(@TempDir Path dir) throws Exception {
        String clientId = "killed-holder";
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        try (ChildJvm holder = new ChildJvm(dir.resolve("holder.log"), ClientIdHolderMain.class,
                cluster.bootstrapServers(), clientId).start()) {
            holder.awaitLine("killable holding", CHILD_START);
            try (Connection other = factory.createConnection()) {
                assertThrows(InvalidClientIDException.class, () -> other.setClientID(clientId),
                        "the client id of a live process in another JVM");
            }
            holder.kill();
        }
        Connection successor = Waits.await("client id " + clientId + " freed after its holder was killed")
                .atMost(FREED_WITHIN)
                .until(() -> ClientIdUniquenessTest.claimOn(factory.createConnection(), clientId), Objects::nonNull);
        try (successor) {
            assertEquals(clientId, successor.getClientID());
        }
    }

    @Test
    void aHolderFrozenWhileAnotherClaimsLosesTheClientIdAndIsToldWhenItRunsAgain(@TempDir Path dir)
            throws Exception {
        String clientId = "frozen-holder";
        TributaryConnectionFactory factory = TestConnectionFactory.create(cluster.bootstrapServers());
        try (ChildJvm holder = new ChildJvm(dir.resolve("holder.log"), ClientIdHolderMain.class,
                cluster.bootstrapServers(), clientId).start()) {
            holder.awaitLine("killable holding", CHILD_START);
            holder.pause();
            Connection successor = Waits.await("client id " + clientId + " taken from its frozen holder")
                    .atMost(FREED_WITHIN)
                    .until(() -> ClientIdUniquenessTest.claimOn(factory.createConnection(), clientId),
                            Objects::nonNull);
            try (successor) {
                holder.resume();
                holder.awaitLine("exception Client id '" + clientId + "' was lost", FREED_WITHIN);
                assertNull(ClientIdUniquenessTest.claimOn(factory.createConnection(), clientId),
                        "the successor still holds " + clientId + " after the old holder came back");
            }
        }
    }
}
