package io.tributary.jms.jndi;

import java.util.Hashtable;

import javax.naming.Context;
import javax.naming.NamingException;
import javax.naming.spi.InitialContextFactory;

/**
 * JNDI for Java SE applications: makes Tributary's connection factories, queues and topics available to
 * {@code new InitialContext()} from declarations in {@code jndi.properties} (or the environment given to
 * {@code new InitialContext(env)}):
 * <pre>
 *   java.naming.factory.initial=io.tributary.jms.jndi.TributaryInitialContextFactory
 *   connectionFactory.local=127.0.0.1:9092
 *   connectionFactory.local.clientId=billing
 *   connectionFactory.local.kafka.request.timeout.ms=10000
 *   queue.orders=orders
 *   topic.prices=market.prices
 * </pre>
 * The declarations and their errors are described in {@link JndiProperties}: every declaration is read and checked
 * when the context is made, so a bad one fails {@code new InitialContext(env)} with a {@link NamingException} naming
 * it, not a later lookup. The context is read-only ({@link ReadOnlyContext}).
 *
 * <p>Stateless; any thread. JNDI instantiates it through its public no-argument constructor.
 */
public final class TributaryInitialContextFactory implements InitialContextFactory {

    public TributaryInitialContextFactory() {
    }

    /**
     * A context holding the objects {@code environment} declares.
     *
     * @param environment the JNDI environment; null reads as empty
     * @throws NamingException naming the first bad declaration
     */
    @Override
    public Context getInitialContext(Hashtable<?, ?> environment) throws NamingException {
        Hashtable<?, ?> env = environment == null ? new Hashtable<>() : environment;
        return new ReadOnlyContext(JndiProperties.bindings(env), env);
    }
}
