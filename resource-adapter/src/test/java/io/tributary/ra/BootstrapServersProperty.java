package io.tributary.ra;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Clears the server JVM's system property {@value TributaryResourceAdapter#BOOTSTRAP_SERVERS_PROPERTY} before each
 * test and puts back what it was afterwards, so that a test of where the cluster comes from when nobody configured
 * one may set it. Used with {@code @ExtendWith} by the tests of the adapter, the activation and the connection
 * definition (JUnit runs this module's tests one at a time, in one JVM).
 */
public final class BootstrapServersProperty implements BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(BootstrapServersProperty.class);
    private static final String SAVED = "saved";

    @Override
    public void beforeEach(ExtensionContext context) {
        String saved = System.getProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY);
        if (saved != null) {
            context.getStore(NAMESPACE).put(SAVED, saved);
        }
        System.clearProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        String saved = context.getStore(NAMESPACE).remove(SAVED, String.class);
        if (saved == null) {
            System.clearProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY);
        } else {
            System.setProperty(TributaryResourceAdapter.BOOTSTRAP_SERVERS_PROPERTY, saved);
        }
    }
}
