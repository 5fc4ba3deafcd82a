package io.tributary.ra.outbound;

import jakarta.jms.IllegalStateException;
import jakarta.jms.IllegalStateRuntimeException;

/**
 * The Jakarta Messaging methods an application in a Jakarta EE web or EJB container may not call (Jakarta Messaging
 * 3.1 §12.2, Jakarta EE 10 platform §EE.6.7): message listeners, connection consumers, exception listeners,
 * {@code Connection.stop}, {@code setClientID}, a second session per connection, {@code JMSContext.createContext},
 * and asynchronous sends. The specification allows the provider to throw; the handles do, so that code that would
 * misbehave in a server fails at once and says why.
 *
 * <p>Stateless: any thread.
 */
final class ContainerRestrictions {

    private ContainerRestrictions() {
    }

    static IllegalStateException forbidden(String method) {
        return new IllegalStateException(message(method));
    }

    static IllegalStateRuntimeException forbiddenRuntime(String method) {
        return new IllegalStateRuntimeException(message(method));
    }

    private static String message(String method) {
        return method + " may not be called in a Jakarta EE web or EJB container (Jakarta Messaging 3.1 §12.2): "
                + "this is a connection of Tributary's resource adapter";
    }
}
