package io.tributary.broker.security;

import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * Where SCRAM authentication finds a user's stored credential (salt, stored key, server key, iterations). Called on
 * a network event loop during the SASL exchange, so an implementation answers from memory and never blocks.
 */
@FunctionalInterface
public interface ScramCredentials {

    /** No user has a credential: every SCRAM authentication fails. */
    ScramCredentials NONE = (user, mechanism) -> null;

    /** The credential of {@code user} for {@code mechanism}, or null if it has none. */
    ScramCredential lookup(String user, ScramMechanism mechanism);
}
