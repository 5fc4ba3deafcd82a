package io.tributary.ra.outbound;

import jakarta.jms.IllegalStateException;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.InvalidClientIDRuntimeException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.InvalidSelectorRuntimeException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.MessageNotWriteableRuntimeException;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.ResourceAllocationRuntimeException;
import jakarta.jms.TransactionInProgressException;
import jakarta.jms.TransactionInProgressRuntimeException;
import jakarta.jms.TransactionRolledBackException;
import jakarta.jms.TransactionRolledBackRuntimeException;

/**
 * Checked JMS exceptions of the classic API as the runtime exceptions of the simplified API (Jakarta Messaging 3.1
 * §7.3), for the {@code JMSContext} handles, which are built on the classic handles.
 *
 * <p>Stateless: any thread.
 */
final class UncheckedJms {

    private UncheckedJms() {
    }

    @FunctionalInterface
    interface Call<T> {
        T call() throws JMSException;
    }

    @FunctionalInterface
    interface Run {
        void run() throws JMSException;
    }

    static <T> T call(Call<T> call) {
        try {
            return call.call();
        } catch (JMSException e) {
            throw of(e);
        }
    }

    static void run(Run run) {
        try {
            run.run();
        } catch (JMSException e) {
            throw of(e);
        }
    }

    /** The runtime counterpart of {@code e}, with its message, error code and {@code e} as the cause. */
    static JMSRuntimeException of(JMSException e) {
        String message = e.getMessage();
        String code = e.getErrorCode();
        if (e instanceof IllegalStateException) {
            return new IllegalStateRuntimeException(message, code, e);
        } else if (e instanceof InvalidClientIDException) {
            return new InvalidClientIDRuntimeException(message, code, e);
        } else if (e instanceof InvalidDestinationException) {
            return new InvalidDestinationRuntimeException(message, code, e);
        } else if (e instanceof InvalidSelectorException) {
            return new InvalidSelectorRuntimeException(message, code, e);
        } else if (e instanceof JMSSecurityException) {
            return new JMSSecurityRuntimeException(message, code, e);
        } else if (e instanceof MessageFormatException) {
            return new MessageFormatRuntimeException(message, code, e);
        } else if (e instanceof MessageNotWriteableException) {
            return new MessageNotWriteableRuntimeException(message, code, e);
        } else if (e instanceof ResourceAllocationException) {
            return new ResourceAllocationRuntimeException(message, code, e);
        } else if (e instanceof TransactionInProgressException) {
            return new TransactionInProgressRuntimeException(message, code, e);
        } else if (e instanceof TransactionRolledBackException) {
            return new TransactionRolledBackRuntimeException(message, code, e);
        }
        return new JMSRuntimeException(message, code, e);
    }
}
