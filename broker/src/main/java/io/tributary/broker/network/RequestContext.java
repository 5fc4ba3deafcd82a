package io.tributary.broker.network;

import java.net.InetAddress;
import java.util.Objects;

import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What a {@link RequestHandler} learns about a request besides its body: the header the client sent, the connection it
 * came on and the listener that accepted that connection. Immutable.
 *
 * @param header        the request header as parsed from the wire (API key, version, correlation id, client id). For an
 *                      ApiVersions request at a version this broker cannot read, this is still the client's header,
 *                      with the client's version, while the body handed over is a v0 one.
 * @param connectionId  {@code localHost:localPort-remoteHost:remotePort-sequence}, unique for the life of the server
 * @param clientAddress the client's IP address
 * @param listenerName  the name of the listener that accepted the connection, such as {@code PLAINTEXT}
 * @param principal     who sent it, as Kafka names principals: {@code User:alice} after SASL authentication,
 *                      {@code User:<certificate subject>} for a TLS client that presented a certificate on an SSL
 *                      listener, {@link KafkaPrincipal#ANONYMOUS} otherwise
 */
public record RequestContext(RequestHeader header, String connectionId, InetAddress clientAddress,
                             String listenerName, KafkaPrincipal principal) {

    /** A request from an anonymous client (a plaintext listener). */
    public RequestContext(RequestHeader header, String connectionId, InetAddress clientAddress, String listenerName) {
        this(header, connectionId, clientAddress, listenerName, KafkaPrincipal.ANONYMOUS);
    }

    public RequestContext {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(connectionId, "connectionId");
        Objects.requireNonNull(clientAddress, "clientAddress");
        Objects.requireNonNull(listenerName, "listenerName");
        Objects.requireNonNull(principal, "principal");
    }
}
