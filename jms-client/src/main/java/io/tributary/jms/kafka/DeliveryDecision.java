package io.tributary.jms.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;

import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.ObjectMessageAllowList;
import io.tributary.jms.message.ObjectMessageLimits;
import io.tributary.jms.message.TributaryMessage;
import io.tributary.jms.message.TributaryObjectMessage;
import io.tributary.jms.selector.MessageSelector;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a record is delivered now, the same for a JMS consumer and a message-driven bean: the record becomes a
 * message ({@link MessageCodec#fromRecord}); one that cannot is {@link Unreadable}; one whose
 * {@code JMSDeliveryTime} is still ahead is {@link Hold held} until then (its partition waits behind it, in order);
 * one sent by this consumer's own connection when it is {@code noLocal} (header {@value #CONNECTION_HEADER}), one
 * expired ({@code JMSExpiration} passed), or one the selector does not select is {@link PassOver passed over}:
 * consumed without delivery. Otherwise it is {@link Deliver delivered}, with the {@code ObjectMessage} allow-list
 * and limits set, and {@code JMSXDeliveryCount} and {@code JMSRedelivered} from the count the caller keeps.
 *
 * <p>What follows a verdict is the caller's: the JMS consumer skips an unreadable record with an error in the log,
 * the resource adapter sends it to its dead-letter topic.
 *
 * <p>Immutable; any thread. Time is the injected clock's.
 */
public final class DeliveryDecision {

    private static final Logger log = LoggerFactory.getLogger(DeliveryDecision.class);

    /** The record header naming the connection that sent the record (its UUID in UTF-8), for {@code noLocal}. */
    public static final String CONNECTION_HEADER = "jms.ConnectionID";

    /** The outcome for one record. */
    public sealed interface Verdict permits Deliver, Hold, PassOver, Unreadable {
    }

    /** Deliver the message. */
    public record Deliver(TributaryMessage message) implements Verdict {
        /**
         * The message as delivered for the {@code deliveryCount}-th time: {@code JMSXDeliveryCount} is the count,
         * {@code JMSRedelivered} whether it is above 1.
         */
        public TributaryMessage delivery(int deliveryCount) {
            message.setDeliveryCount(deliveryCount);
            message.setJMSRedelivered(deliveryCount > 1);
            return message;
        }
    }

    /** Not yet: deliverable at {@code untilMillis} (epoch ms), {@code delayMillis} from the decision. */
    public record Hold(long untilMillis, long delayMillis) implements Verdict {
    }

    /** Consumed without delivery, for {@code reason}. */
    public record PassOver(Reason reason) implements Verdict {
    }

    /** Not a readable JMS message: {@code cause} names the record, the header or body, and what is wrong. */
    public record Unreadable(JMSException cause) implements Verdict {
        public String reason() {
            return cause.getMessage();
        }
    }

    public enum Reason {
        /** Sent by this consumer's own connection, which is {@code noLocal}. */
        LOCAL,
        EXPIRED,
        NOT_SELECTED,
        /** The selector could not read the message: passed over rather than stopping the partition. */
        SELECTOR_FAILED
    }

    private final Destination destination;
    private final MessageSelector selector;
    private final Clock clock;
    private final boolean plainRecordsAsText;
    private final ObjectMessageAllowList allowList;
    private final ObjectMessageLimits limits;
    /** The consumer's connection id in UTF-8 when it is noLocal, else null. */
    private final byte[] localConnection;

    private DeliveryDecision(Destination destination, MessageSelector selector, Clock clock,
                             boolean plainRecordsAsText, ObjectMessageAllowList allowList, ObjectMessageLimits limits,
                             byte[] localConnection) {
        this.destination = destination;
        this.selector = selector;
        this.clock = clock;
        this.plainRecordsAsText = plainRecordsAsText;
        this.allowList = allowList;
        this.limits = limits;
        this.localConnection = localConnection;
    }

    /**
     * The decision for records of {@code destination} (the {@code JMSDestination} of the messages), selected by
     * {@code selector}: plain records as {@code BytesMessage}, the default allow-list and limits, local messages
     * delivered.
     */
    public static DeliveryDecision of(Destination destination, MessageSelector selector, Clock clock) {
        return new DeliveryDecision(destination, selector, clock, false, ObjectMessageAllowList.DEFAULT,
                ObjectMessageLimits.DEFAULT, null);
    }

    /** Records without a JMS body type arrive as {@code TextMessage} (UTF-8) rather than {@code BytesMessage}. */
    /** The receiver's message selector. */
    public MessageSelector selector() {
        return selector;
    }

    public DeliveryDecision plainRecordsAsText(boolean asText) {
        return new DeliveryDecision(destination, selector, clock, asText, allowList, limits, localConnection);
    }

    /** What an {@code ObjectMessage} body may deserialize, and at what cost. */
    public DeliveryDecision objectMessages(ObjectMessageAllowList allowList, ObjectMessageLimits limits) {
        return new DeliveryDecision(destination, selector, clock, plainRecordsAsText, allowList, limits,
                localConnection);
    }

    /** {@code noLocal}: records sent by connection {@code connectionId} are passed over. */
    public DeliveryDecision passingOverLocal(String connectionId) {
        return new DeliveryDecision(destination, selector, clock, plainRecordsAsText, allowList, limits,
                connectionId.getBytes(StandardCharsets.UTF_8));
    }

    /** The verdict on {@code record} now. */
    public Verdict decide(ConsumerRecord<byte[], byte[]> record) {
        TributaryMessage message;
        try {
            message = MessageCodec.fromRecord(record, topic -> destination, plainRecordsAsText);
        } catch (JMSException e) {
            return new Unreadable(e);
        }
        long now = clock.millis();
        long due = message.getJMSDeliveryTime();
        if (due > now) {
            return new Hold(due, due - now);
        }
        if (localConnection != null) {
            Header origin = record.headers().lastHeader(CONNECTION_HEADER);
            if (origin != null && Arrays.equals(origin.value(), localConnection)) {
                return new PassOver(Reason.LOCAL);
            }
        }
        long expiration = message.getJMSExpiration();
        if (expiration != 0 && expiration < now) {
            log.debug("{}-{}@{} expired at {}; passed over", record.topic(), record.partition(), record.offset(),
                    expiration);
            return new PassOver(Reason.EXPIRED);
        }
        try {
            if (!selector.matches(message)) {
                return new PassOver(Reason.NOT_SELECTED);
            }
        } catch (JMSException e) {
            log.warn("{}-{}@{}: the selector could not read the message ({}); passed over", record.topic(),
                    record.partition(), record.offset(), e.getMessage());
            return new PassOver(Reason.SELECTOR_FAILED);
        }
        if (message instanceof TributaryObjectMessage objectMessage) {
            objectMessage.setAllowList(allowList);
            objectMessage.setLimits(limits);
        }
        return new Deliver(message);
    }
}
