package io.tributary.ra.outbound;

import java.util.Objects;

import jakarta.resource.spi.ConnectionRequestInfo;

/**
 * What an application asked for when it allocated a connection, as far as it tells pooled connections apart: the
 * user name of {@code createConnection(user, password)}. Tributary's listeners do not authenticate yet, so the JMS
 * provider keeps the user as metadata only and ignores the password; the password is therefore not kept here
 * either, and connections of one user are interchangeable.
 *
 * <p>Immutable.
 */
final class ConnectionRequest implements ConnectionRequestInfo {

    static final ConnectionRequest DEFAULT = new ConnectionRequest(null);

    private final String user;

    ConnectionRequest(String user) {
        this.user = user;
    }

    /** The request behind {@code info}, which the container passes through from the connection factory. */
    static ConnectionRequest of(ConnectionRequestInfo info) {
        return info instanceof ConnectionRequest request ? request : DEFAULT;
    }

    String user() {
        return user;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionRequest other && Objects.equals(user, other.user);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(user);
    }

    @Override
    public String toString() {
        return "ConnectionRequest[user=" + user + "]";
    }
}
