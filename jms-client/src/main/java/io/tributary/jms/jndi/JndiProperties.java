package io.tributary.jms.jndi;

import java.util.Collections;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import javax.naming.Context;
import javax.naming.NamingException;

import jakarta.jms.InvalidDestinationException;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;

/**
 * Reads the administered objects declared in a JNDI environment (the {@code Hashtable} given to
 * {@code new InitialContext(env)}, into which JNDI has merged every {@code jndi.properties} on the class path):
 * <pre>
 *   connectionFactory.&lt;name&gt;=&lt;bootstrap servers&gt;
 *   connectionFactory.&lt;name&gt;.clientId=...
 *   connectionFactory.&lt;name&gt;.trustedObjectPackages=...
 *   connectionFactory.&lt;name&gt;.plainRecordsAsText=true|false
 *   connectionFactory.&lt;name&gt;.kafka.&lt;Kafka client property&gt;=...
 *   queue.&lt;name&gt;=&lt;topic name&gt;
 *   topic.&lt;name&gt;=&lt;topic name&gt;
 * </pre>
 * A connection factory's name ends at the first {@code .} after {@code connectionFactory.}; everything after it is a
 * property of that factory (see {@link ConnectionFactoryProperties}). That rule makes a misspelt property an error
 * rather than a second factory with a strange name, at the price of factory names without dots. Queue and topic
 * names may contain dots. Without any {@code connectionFactory.} entry, {@value #DEFAULT_FACTORY_NAME} names a
 * factory for {@link Context#PROVIDER_URL} (default {@value #DEFAULT_BOOTSTRAP_SERVERS}); with one, the provider URL
 * is not used. Other environment entries are JNDI's or other providers' and are left alone.
 *
 * <p>Values are stripped of surrounding blanks: {@code Properties.load} keeps trailing blanks, which are invisible in
 * a file and never part of a host name, topic name or Kafka setting.
 *
 * <p>Stateless; any thread.
 */
final class JndiProperties {

    static final String CONNECTION_FACTORY_PREFIX = "connectionFactory.";
    static final String QUEUE_PREFIX = "queue.";
    static final String TOPIC_PREFIX = "topic.";
    static final String DEFAULT_FACTORY_NAME = "ConnectionFactory";
    static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";

    private JndiProperties() {
    }

    /**
     * The objects {@code environment} declares, by JNDI name.
     *
     * @throws NamingException naming the first bad entry (in key order): an illegal topic name or factory setting,
     *         an unknown factory property, a property of an undeclared factory, a non-string value, or two entries
     *         binding the same name
     */
    static SortedMap<String, Object> bindings(Hashtable<?, ?> environment) throws NamingException {
        // Sorted, so that the entry an error names does not depend on Hashtable order, and so that a factory's
        // declaration (connectionFactory.x) is read before its properties (connectionFactory.x.*).
        SortedMap<String, String> entries = new TreeMap<>();
        for (Map.Entry<?, ?> entry : environment.entrySet()) {
            if (entry.getKey() instanceof String key && isDeclaration(key)) {
                if (!(entry.getValue() instanceof String value)) {
                    throw new NamingException("JNDI entry " + key + ": expected a string, found "
                            + entry.getValue().getClass().getName());
                }
                entries.put(key, value.strip());
            }
        }

        Map<String, TributaryConnectionFactory> factories = new LinkedHashMap<>();
        Bound bound = new Bound();
        for (Map.Entry<String, String> entry : entries.entrySet()) {
            String key = entry.getKey();
            String value = entry.getValue();
            if (key.startsWith(CONNECTION_FACTORY_PREFIX)) {
                connectionFactoryEntry(key, value, factories, bound);
            } else if (key.startsWith(QUEUE_PREFIX)) {
                String name = bindingName(key, QUEUE_PREFIX);
                try {
                    bound.add(name, "entry " + key, TributaryQueue.of(value));
                } catch (InvalidDestinationException e) {
                    throw NamingErrors.withCause("JNDI entry " + key + ": " + e.getMessage(), e);
                }
            } else {
                String name = bindingName(key, TOPIC_PREFIX);
                try {
                    bound.add(name, "entry " + key, TributaryTopic.of(value));
                } catch (InvalidDestinationException e) {
                    throw NamingErrors.withCause("JNDI entry " + key + ": " + e.getMessage(), e);
                }
            }
        }
        if (factories.isEmpty()) {
            bound.add(DEFAULT_FACTORY_NAME, "default connection factory (no " + CONNECTION_FACTORY_PREFIX
                    + "<name> entry)", defaultFactory(environment));
        }
        return Collections.unmodifiableSortedMap(bound.objects);
    }

    /** Whether an environment entry named {@code key} is read by {@link #bindings}. */
    static boolean isDeclaration(String key) {
        return key.startsWith(CONNECTION_FACTORY_PREFIX) || key.startsWith(QUEUE_PREFIX)
                || key.startsWith(TOPIC_PREFIX);
    }

    private static void connectionFactoryEntry(String key, String value,
                                               Map<String, TributaryConnectionFactory> factories, Bound bound)
            throws NamingException {
        String rest = bindingName(key, CONNECTION_FACTORY_PREFIX);
        int dot = rest.indexOf('.');
        String name = dot < 0 ? rest : rest.substring(0, dot);
        if (name.isEmpty()) {
            throw new NamingException("JNDI entry " + key + ": the connection factory's name is empty");
        }
        if (dot < 0) {
            TributaryConnectionFactory factory = new TributaryConnectionFactory();
            apply(key, factory, ConnectionFactoryProperties.BOOTSTRAP_SERVERS, value);
            factories.put(name, factory);
            bound.add(name, "entry " + key, factory);
            return;
        }
        String property = rest.substring(dot + 1);
        TributaryConnectionFactory factory = factories.get(name);
        if (factory == null) {
            throw new NamingException("JNDI entry " + key + " sets property '" + property + "' of connection factory '"
                    + name + "', which is not declared: add " + CONNECTION_FACTORY_PREFIX + name
                    + "=<bootstrap servers> (a connection factory's name cannot contain '.')");
        }
        if (property.equals(ConnectionFactoryProperties.BOOTSTRAP_SERVERS)) {
            // Two spellings of one setting would make one of them silently lose.
            throw new NamingException("JNDI entry " + key + ": the bootstrap servers of connection factory '" + name
                    + "' are the value of " + CONNECTION_FACTORY_PREFIX + name + ", not a property");
        }
        apply(key, factory, property, value);
    }

    private static void apply(String key, TributaryConnectionFactory factory, String property, String value)
            throws NamingException {
        try {
            ConnectionFactoryProperties.apply(factory, property, value);
        } catch (IllegalArgumentException e) {
            throw NamingErrors.withCause("JNDI entry " + key + ": " + e.getMessage(), e);
        }
    }

    private static String bindingName(String key, String prefix) throws NamingException {
        String name = key.substring(prefix.length());
        if (name.isEmpty()) {
            throw new NamingException("JNDI entry " + key + " names nothing: write " + prefix + "<name>=...");
        }
        return name;
    }

    private static TributaryConnectionFactory defaultFactory(Hashtable<?, ?> environment) throws NamingException {
        Object url = environment.get(Context.PROVIDER_URL);
        if (url == null) {
            return new TributaryConnectionFactory(DEFAULT_BOOTSTRAP_SERVERS);
        }
        if (!(url instanceof String servers)) {
            throw new NamingException(Context.PROVIDER_URL + ": expected a string, found " + url.getClass().getName());
        }
        try {
            return new TributaryConnectionFactory(servers);
        } catch (IllegalArgumentException e) {
            throw NamingErrors.withCause(Context.PROVIDER_URL + " (the bootstrap servers of the default connection"
                    + " factory): " + e.getMessage(), e);
        }
    }

    /** The names bound so far, and what bound each ("entry queue.x"), to name both sides of a clash. */
    private static final class Bound {
        final SortedMap<String, Object> objects = new TreeMap<>();
        final Map<String, String> sources = new LinkedHashMap<>();

        void add(String name, String source, Object object) throws NamingException {
            String earlier = sources.putIfAbsent(name, source);
            if (earlier != null) {
                throw new NamingException("JNDI " + source + " binds '" + name + "', which " + earlier
                        + " already binds");
            }
            objects.put(name, object);
        }
    }
}
