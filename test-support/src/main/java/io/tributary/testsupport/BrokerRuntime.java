package io.tributary.testsupport;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The one way test-support reaches the broker: a {@link ServiceLoader} service that the broker module implements in
 * its test sources ({@code io.tributary.broker.testsupport.TributaryBrokerRuntime}, published in the broker's test
 * jar with its {@code META-INF/services} entry).
 *
 * <p>Why a service and not a dependency: the broker's own tests use this module (test scope), so this module cannot
 * depend on the broker, or Maven would see a cycle. Why not reflection on {@code Broker}: the broker's classes change
 * often, and a service implementation is compiled against them, so a renamed method breaks the broker's test
 * compilation instead of every cluster test at run time. Brokers as processes need only the main class's name, which
 * the service gives too ({@code java -cp <this JVM's class path> <main class>}).
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface BrokerRuntime {

    /** The class whose {@code main} starts a broker from {@code --override name=value} arguments. */
    String mainClass();

    /** Starts a broker in this JVM with {@code properties} (broker configuration names) and waits until it serves. */
    Running start(Map<String, String> properties);

    /** A broker started in this JVM. */
    interface Running extends AutoCloseable {

        /** {@code host:port} of its PLAINTEXT listener. */
        String bootstrapServers();

        /** The port its PLAINTEXT listener is bound to. */
        int port();

        /** A clean shutdown; returns when the broker has stopped. */
        @Override
        void close();
    }

    /** The broker on the class path; fails with what to add when there is none, or more than one. */
    static BrokerRuntime load() {
        List<BrokerRuntime> found = ServiceLoader.load(BrokerRuntime.class).stream().map(ServiceLoader.Provider::get)
                .toList();
        if (found.size() != 1) {
            throw new IllegalStateException(found.size() + " implementations of " + BrokerRuntime.class.getName()
                    + " on the class path, expected one: add io.tributary:tributary-broker with <type>test-jar</type>"
                    + " (test scope) beside tributary-test-support");
        }
        return found.get(0);
    }
}
