package io.tributary.jms;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;

/**
 * The application that {@link ClientIdCrashTest} runs in a JVM of its own: it opens a connection, sets the client id
 * it is given and an exception listener, prints {@code killable holding} and waits to be killed ({@code SIGKILL}: the
 * connection is never closed, so its claim does not leave its group).
 *
 * <p>Arguments: bootstrap servers, client id. Output: {@code killable holding}, {@code exception <message>} for each
 * exception the listener is told, or {@code failed <reason>}.
 */
final class ClientIdHolderMain {

    private ClientIdHolderMain() {
    }

    public static void main(String[] args) {
        try {
            Connection connection = TestConnectionFactory.create(args[0]).createConnection(); // never closed
            connection.setClientID(args[1]);
            connection.setExceptionListener(e -> System.out.println("exception " + e.getMessage()));
        } catch (JMSException | RuntimeException e) {
            System.out.println("failed " + e);
            Runtime.getRuntime().halt(1);
        }
        TransactedCopyMain.awaitKill("holding");
    }
}
