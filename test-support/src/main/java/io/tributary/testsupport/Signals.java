package io.tributary.testsupport;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Sends a POSIX signal to a process the harness started, through {@code kill -<name> <pid>}: SIGSTOP freezes it (a
 * hung process, its sockets open), SIGCONT lets it go on.
 *
 * <p>Stateless; any thread.
 */
final class Signals {

    private Signals() {
    }

    /**
     * @param name the signal without its {@code SIG} prefix, e.g. {@code STOP}
     * @throws IllegalStateException if the process is not running or {@code kill} fails
     */
    static void send(Process process, String name) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("the process is not running");
        }
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
        }
    }
}
