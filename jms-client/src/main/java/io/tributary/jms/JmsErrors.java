package io.tributary.jms;

import java.util.concurrent.ExecutionException;

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

import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Turning failures into Jakarta Messaging exceptions: Kafka client exceptions into {@link JMSException}s that say
 * what was being done, and checked JMS exceptions into the runtime ones of the simplified API (§7.3).
 */
final class JmsErrors {

    private JmsErrors() {
    }

    /** A {@link JMSException} for a failed Kafka operation, linked to the cause. */
    static JMSException fromKafka(String doing, Throwable failure) {
        Throwable cause = failure instanceof ExecutionException && failure.getCause() != null
                ? failure.getCause() : failure;
        JMSException e;
        if (cause instanceof InvalidTopicException || cause instanceof UnknownTopicOrPartitionException) {
            e = new InvalidDestinationException(doing + " failed: " + cause.getMessage());
        } else if (cause instanceof AuthorizationException || cause instanceof AuthenticationException) {
            e = new JMSSecurityException(doing + " was refused: " + cause.getMessage());
        } else {
            e = new JMSException(doing + " failed: " + cause);
        }
        if (cause instanceof Exception exception) {
            e.setLinkedException(exception);
        }
        e.initCause(cause);
        return e;
    }

    /** The runtime counterpart of a checked JMS exception, with the same message, error code and cause. */
    static JMSRuntimeException runtime(JMSException e) {
        JMSRuntimeException converted;
        if (e instanceof IllegalStateException) {
            converted = new IllegalStateRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof InvalidClientIDException) {
            converted = new InvalidClientIDRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof InvalidDestinationException) {
            converted = new InvalidDestinationRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof InvalidSelectorException) {
            converted = new InvalidSelectorRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof JMSSecurityException) {
            converted = new JMSSecurityRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof MessageFormatException) {
            converted = new MessageFormatRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof MessageNotWriteableException) {
            converted = new MessageNotWriteableRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof ResourceAllocationException) {
            converted = new ResourceAllocationRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof TransactionInProgressException) {
            converted = new TransactionInProgressRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof TransactionRolledBackException) {
            converted = new TransactionRolledBackRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else {
            converted = new JMSRuntimeException(e.getMessage(), e.getErrorCode(), e);
        }
        return converted;
    }
}
