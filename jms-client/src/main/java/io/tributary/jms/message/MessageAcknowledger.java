package io.tributary.jms.message;

import jakarta.jms.JMSException;

/**
 * What {@link TributaryMessage#acknowledge()} calls: the session that delivered the message decides what
 * acknowledging means in its acknowledgement mode (in {@code CLIENT_ACKNOWLEDGE}, everything the session has consumed;
 * in the other modes, nothing, as Jakarta Messaging 3.1 §3.6 says calls are ignored).
 *
 * <p>Called on the application's thread, the one that called {@code acknowledge()}.
 */
@FunctionalInterface
public interface MessageAcknowledger {

    /**
     * Acknowledges on behalf of the message's session.
     *
     * @throws JMSException for example {@code IllegalStateException} when the session is closed
     */
    void acknowledge() throws JMSException;
}
