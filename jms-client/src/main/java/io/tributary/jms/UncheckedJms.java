package io.tributary.jms;

import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;

/**
 * Calls to the classic API from the simplified API: a checked {@link JMSException} comes out as its runtime
 * counterpart (Jakarta Messaging 3.1 §7.3) with the same message, error code and the checked one as the cause. Used
 * by the provider's {@code JMSContext} and {@code JMSConsumer} and by the resource adapter's, which are built on the
 * classic handles.
 *
 * <p>Stateless: any thread.
 */
public final class UncheckedJms {

    private UncheckedJms() {
    }

    /** A classic-API call that returns a value. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws JMSException;
    }

    /** A classic-API call that returns nothing. */
    @FunctionalInterface
    public interface Run {
        void run() throws JMSException;
    }

    public static <T> T call(Call<T> call) {
        try {
            return call.call();
        } catch (JMSException e) {
            throw of(e);
        }
    }

    public static void run(Run run) {
        try {
            run.run();
        } catch (JMSException e) {
            throw of(e);
        }
    }

    /** The runtime counterpart of {@code e}, with its message, error code and {@code e} as the cause. */
    public static JMSRuntimeException of(JMSException e) {
        return JmsErrors.runtime(e);
    }
}
