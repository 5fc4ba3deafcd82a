/**
 * Listener security: which security protocol each listener speaks, the TLS and SASL settings of each listener under
 * Kafka's property names, and the SASL servers that authenticate clients. The network layer asks this package for an
 * {@code SSLEngine} and a {@code SaslServer} per connection; nothing here touches a socket. Authorization: the
 * authorizer settings ({@link io.tributary.broker.security.AuthorizerConfig}) and the ACL decision
 * ({@link io.tributary.broker.security.AclAuthorizer}), which the request layer asks before each request runs.
 */
package io.tributary.broker.security;
