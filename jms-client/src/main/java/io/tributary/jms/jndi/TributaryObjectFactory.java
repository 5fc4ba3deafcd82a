package io.tributary.jms.jndi;

import java.util.Enumeration;
import java.util.Hashtable;
import java.util.Map;

import javax.naming.Context;
import javax.naming.Name;
import javax.naming.NamingException;
import javax.naming.RefAddr;
import javax.naming.Reference;
import javax.naming.StringRefAddr;
import javax.naming.spi.ObjectFactory;

import jakarta.jms.InvalidDestinationException;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;

/**
 * Turns the {@link Reference}s of Tributary's administered objects back into objects, for JNDI providers that store
 * references rather than serialized objects (LDAP, application servers' naming services). It also writes those
 * references ({@code referenceTo}), so that the format lives in one class. The format, all addresses
 * {@link StringRefAddr}s:
 * <ul>
 *   <li>{@code io.tributary.jms.TributaryConnectionFactory}: {@code bootstrapServers}, {@code clientId},
 *       {@code connectTimeout}, {@code trustedObjectPackages}, {@code objectMessageMaxDepth},
 *       {@code objectMessageMaxReferences}, {@code objectMessageMaxArrayLength}, {@code objectMessageMaxBytes},
 *       {@code plainRecordsAsText}, {@code startAt}, {@code transactionalIdPrefix}, {@code queueMode},
 *       {@code subscriptionMode}, {@code deadLetterQueue}, {@code maxDeliveries} and
 *       {@code kafka.<Kafka client property>}, one address per
 *       setting; an absent address leaves the factory's default;</li>
 *   <li>{@code io.tributary.jms.TributaryQueue} and {@code io.tributary.jms.TributaryTopic}: one {@code name}
 *       address, the Kafka topic name.</li>
 * </ul>
 * Every reference names this class as its factory.
 *
 * <p>Stateless; any thread. JNDI instantiates it through its public no-argument constructor.
 */
public final class TributaryObjectFactory implements ObjectFactory {

    /** The address holding a destination's name. */
    static final String DESTINATION_NAME = "name";

    public TributaryObjectFactory() {
    }

    /** The reference {@link TributaryConnectionFactory#getReference()} returns. */
    public static Reference referenceTo(TributaryConnectionFactory factory) {
        Reference reference = new Reference(TributaryConnectionFactory.class.getName(),
                TributaryObjectFactory.class.getName(), null);
        for (Map.Entry<String, String> property : ConnectionFactoryProperties.of(factory).entrySet()) {
            reference.add(new StringRefAddr(property.getKey(), property.getValue()));
        }
        return reference;
    }

    /** The reference {@link TributaryQueue#getReference()} returns. */
    public static Reference referenceTo(TributaryQueue queue) {
        return new Reference(TributaryQueue.class.getName(), new StringRefAddr(DESTINATION_NAME, queue.getQueueName()),
                TributaryObjectFactory.class.getName(), null);
    }

    /** The reference {@link TributaryTopic#getReference()} returns. */
    public static Reference referenceTo(TributaryTopic topic) {
        return new Reference(TributaryTopic.class.getName(), new StringRefAddr(DESTINATION_NAME, topic.getTopicName()),
                TributaryObjectFactory.class.getName(), null);
    }

    /**
     * The connection factory, queue or topic {@code obj} refers to; null (as {@link ObjectFactory} requires, so that
     * JNDI may try other factories) if {@code obj} is not a reference to one of them.
     *
     * @throws NamingException naming the address and the reference's class when an address is unknown, not a
     *         string, or holds an illegal value (the setter's or destination's exception is the root cause)
     */
    @Override
    public Object getObjectInstance(Object obj, Name name, Context nameCtx, Hashtable<?, ?> environment)
            throws NamingException {
        if (!(obj instanceof Reference reference)) {
            return null;
        }
        String className = reference.getClassName();
        if (TributaryConnectionFactory.class.getName().equals(className)) {
            return connectionFactory(reference);
        }
        if (TributaryQueue.class.getName().equals(className)) {
            String queueName = destinationName(reference);
            try {
                return TributaryQueue.of(queueName);
            } catch (InvalidDestinationException e) {
                throw NamingErrors.withCause("reference to " + className + ": " + e.getMessage(), e);
            }
        }
        if (TributaryTopic.class.getName().equals(className)) {
            String topicName = destinationName(reference);
            try {
                return TributaryTopic.of(topicName);
            } catch (InvalidDestinationException e) {
                throw NamingErrors.withCause("reference to " + className + ": " + e.getMessage(), e);
            }
        }
        return null;
    }

    private static TributaryConnectionFactory connectionFactory(Reference reference) throws NamingException {
        TributaryConnectionFactory factory = new TributaryConnectionFactory();
        for (Enumeration<RefAddr> addresses = reference.getAll(); addresses.hasMoreElements(); ) {
            RefAddr address = addresses.nextElement();
            String value = stringContent(reference, address);
            try {
                ConnectionFactoryProperties.apply(factory, address.getType(), value);
            } catch (IllegalArgumentException e) {
                throw NamingErrors.withCause("reference to " + reference.getClassName() + ", address '"
                        + address.getType() + "': " + e.getMessage(), e);
            }
        }
        return factory;
    }

    private static String destinationName(Reference reference) throws NamingException {
        RefAddr address = reference.get(DESTINATION_NAME);
        if (address == null || reference.size() != 1) {
            throw new NamingException("reference to " + reference.getClassName() + " must have exactly one address, '"
                    + DESTINATION_NAME + "' (the Kafka topic name); it has " + addressTypes(reference));
        }
        return stringContent(reference, address);
    }

    private static String stringContent(Reference reference, RefAddr address) throws NamingException {
        if (!(address.getContent() instanceof String content)) {
            throw new NamingException("reference to " + reference.getClassName() + ", address '" + address.getType()
                    + "': expected a string, found " + (address.getContent() == null ? "null"
                    : address.getContent().getClass().getName()));
        }
        return content;
    }

    private static String addressTypes(Reference reference) {
        StringBuilder types = new StringBuilder("[");
        for (int i = 0; i < reference.size(); i++) {
            types.append(i == 0 ? "" : ", ").append(reference.get(i).getType());
        }
        return types.append(']').toString();
    }
}
