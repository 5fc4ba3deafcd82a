package io.tributary.broker.network;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The principal of a connection, kept as a channel attribute: set once by the stage that authenticates it (the
 * {@link SaslAuthenticator}, or the TLS handshake on an SSL listener) before any request other than ApiVersions is
 * decoded, and read by the {@link RequestDecoder} into every {@link RequestContext}. Absent means anonymous.
 */
final class ConnectionPrincipal {

    private static final AttributeKey<KafkaPrincipal> KEY = AttributeKey.valueOf("tributary.principal");

    private ConnectionPrincipal() {
    }

    static KafkaPrincipal of(Channel channel) {
        KafkaPrincipal principal = channel.attr(KEY).get();
        return principal != null ? principal : KafkaPrincipal.ANONYMOUS;
    }

    static void set(Channel channel, KafkaPrincipal principal) {
        channel.attr(KEY).set(principal);
    }
}
