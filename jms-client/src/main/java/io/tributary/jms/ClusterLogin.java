package io.tributary.jms;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;

import io.tributary.jms.kafka.KafkaClientConfig;
import io.tributary.jms.kafka.SaslLogin;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * The check that a connection over TLS or SASL gets in, made before {@code createConnection} returns it, so that
 * bad credentials or an untrusted certificate fail there with a {@link JMSSecurityException} that says why, not at
 * the first send or receive: one DescribeCluster request through the connection's admin client, which must
 * complete the TLS handshake and the SASL login, within the factory's {@code connectTimeout}.
 *
 * <p>Stateless; any thread; blocks its caller up to the timeout.
 */
final class ClusterLogin {

    private ClusterLogin() {
    }

    /** Whether the connection's clients use TLS or SASL, so that getting in can fail. */
    static boolean isSecured(KafkaClientConfig kafka) {
        return !"PLAINTEXT".equals(SaslLogin.protocol(kafka.passThrough()));
    }

    /**
     * Checks, before any client is made, that a connection over SASL has a login: the user and password of
     * {@code createConnection}, a {@code sasl.jaas.config} among the Kafka properties, or the JVM's JAAS file
     * ({@code java.security.auth.login.config}).
     *
     * @throws JMSSecurityException saying what is missing
     */
    static void requireLogin(ConnectionSettings settings) throws JMSSecurityException {
        if (SaslLogin.isSasl(settings.kafka().passThrough()) && !settings.kafka().hasSaslLogin()
                && System.getProperty("java.security.auth.login.config") == null) {
            throw new JMSSecurityException("A connection to the cluster at " + settings.bootstrapServers()
                    + " over " + SaslLogin.protocol(settings.kafka().passThrough()) + " needs a login: use"
                    + " createConnection(user, password), or set sasl.jaas.config in kafkaProperties");
        }
    }

    /**
     * Returns once the cluster answered a request of the connection's clients.
     *
     * @throws JMSSecurityException if the cluster refused the login or the TLS handshake failed
     * @throws JMSException         if the cluster did not answer within the connect timeout
     */
    static void check(Admin admin, ConnectionSettings settings) throws JMSException {
        String cluster = "the cluster at " + settings.bootstrapServers();
        String who = settings.user() == null ? "The connection" : "User " + settings.user();
        long timeoutMs = settings.connectTimeout().toMillis();
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) Math.min(timeoutMs, Integer.MAX_VALUE)))
                    .clusterId().get(timeoutMs + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SslAuthenticationException tls) {
                throw security("The TLS handshake with " + cluster + " failed: " + tls.getMessage(), tls);
            }
            if (cause instanceof AuthenticationException refused) {
                throw security(who + " could not log in to " + cluster + ": " + refused.getMessage(), refused);
            }
            throw JmsErrors.fromKafka("Connecting to " + cluster, cause);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new JMSException("The cluster at " + settings.bootstrapServers() + " did not answer within "
                    + timeoutMs + " ms (the connection factory's connectTimeout)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JMSException("Interrupted while connecting to " + cluster);
        }
    }

    private static JMSSecurityException security(String message, Exception cause) {
        JMSSecurityException e = new JMSSecurityException(message);
        e.setLinkedException(cause);
        e.initCause(cause);
        return e;
    }
}
