package io.tributary.itests.xacrash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import jakarta.transaction.RollbackException;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * A fault point in the two-phase commit of the transaction it is enlisted in: an XAResource that, at the phase it is
 * set for, writes the server's process id to a marker file and then never returns, so that the test can SIGKILL the
 * server at exactly that point: in {@code prepare} (before the decision, the branches enlisted before it prepared) or
 * in {@code commit} (after the decision, those enlisted before it committed and those after it prepared). It stops there once per marker: when the marker exists (the server was killed
 * and restarted, and the request is delivered again), it lets the transaction pass.
 *
 * <p>Not serializable, and no recovery finds it: after the crash the transaction manager cannot finish this
 * branch (it holds no data) and says so in its log; the other branches it resolves.
 */
public final class CrashPoint implements XAResource {

    /** Where a transaction manager is bound: WildFly, Payara. */
    private static final List<String> TRANSACTION_MANAGERS = List.of(
            "java:jboss/TransactionManager", "java:appserver/TransactionManager");

    /** Where the transaction stops. */
    public enum Phase { PREPARE, COMMIT }

    private final Phase phase;
    private final Path marker;

    private CrashPoint(Phase phase, Path marker) {
        this.phase = phase;
        this.marker = marker;
    }

    /** Enlists a crash point for {@code phase} in the current transaction. */
    static void enlist(Phase phase, Path marker) {
        try {
            if (!transactionManager().getTransaction().enlistResource(new CrashPoint(phase, marker))) {
                throw new IllegalStateException("the transaction refused the crash point");
            }
        } catch (RollbackException | SystemException e) {
            throw new IllegalStateException("cannot enlist the crash point", e);
        }
    }

    private static TransactionManager transactionManager() {
        IllegalStateException failure = new IllegalStateException("no transaction manager at " + TRANSACTION_MANAGERS);
        for (String name : TRANSACTION_MANAGERS) {
            try {
                return (TransactionManager) new InitialContext().lookup(name);
            } catch (NamingException e) {
                failure.addSuppressed(e);
            }
        }
        throw failure;
    }

    private void reached(Phase now) {
        if (now != phase || Files.exists(marker)) {
            return;
        }
        try {
            Path partial = marker.resolveSibling(marker.getFileName() + ".partial");
            Files.writeString(partial, Long.toString(ProcessHandle.current().pid()), StandardCharsets.US_ASCII);
            Files.move(partial, marker, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        while (true) { // until the test kills the process
            LockSupport.parkNanos(1_000_000_000L);
        }
    }

    @Override
    public int prepare(Xid xid) {
        reached(Phase.PREPARE);
        return XA_OK;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) {
        reached(Phase.COMMIT);
    }

    @Override
    public void rollback(Xid xid) {
    }

    @Override
    public void start(Xid xid, int flags) {
    }

    @Override
    public void end(Xid xid, int flags) {
    }

    @Override
    public void forget(Xid xid) {
    }

    @Override
    public Xid[] recover(int flag) {
        return new Xid[0];
    }

    @Override
    public boolean isSameRM(XAResource other) {
        return other == this;
    }

    @Override
    public int getTransactionTimeout() {
        return 0;
    }

    @Override
    public boolean setTransactionTimeout(int seconds) {
        return false;
    }
}
