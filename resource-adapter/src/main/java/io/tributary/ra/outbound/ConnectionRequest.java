package io.tributary.ra.outbound;

import java.util.Objects;
import java.util.Set;

import javax.security.auth.Subject;

import jakarta.resource.spi.ConnectionRequestInfo;
import jakarta.resource.spi.ManagedConnectionFactory;
import jakarta.resource.spi.security.PasswordCredential;

/**
 * Who a pooled connection logs in as, which tells pooled connections apart: the user and password of
 * {@code createConnection(user, password)} (application sign-on), or those the container passes in the
 * {@link Subject} (container-managed sign-on), else the connection definition's {@code user} and {@code password}.
 * Over SASL the provider logs in with them; without SASL the cluster does not authenticate and the user is metadata.
 *
 * <p>Immutable. {@link #toString()} never shows the password.
 */
final class ConnectionRequest implements ConnectionRequestInfo {

    static final ConnectionRequest DEFAULT = new ConnectionRequest(null, null);

    private final String user;
    private final String password;

    ConnectionRequest(String user, String password) {
        this.user = user;
        this.password = password;
    }

    /** The request behind {@code info}, which the container passes through from the connection factory. */
    static ConnectionRequest of(ConnectionRequestInfo info) {
        return info instanceof ConnectionRequest request ? request : DEFAULT;
    }

    /**
     * Who a new or matched connection logs in as: the container's credential for {@code factory} in
     * {@code subject} if there is one, else the application's request if it named a user, else
     * {@code fallback} (the connection definition's own user and password).
     */
    static ConnectionRequest resolve(Subject subject, ConnectionRequestInfo info, ManagedConnectionFactory factory,
                                     ConnectionRequest fallback) {
        if (subject != null) {
            Set<PasswordCredential> credentials = subject.getPrivateCredentials(PasswordCredential.class);
            for (PasswordCredential credential : credentials) {
                if (credential.getManagedConnectionFactory() == null
                        || factory.equals(credential.getManagedConnectionFactory())) {
                    return new ConnectionRequest(credential.getUserName(), new String(credential.getPassword()));
                }
            }
        }
        ConnectionRequest request = of(info);
        return request.user != null ? request : fallback;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionRequest other && Objects.equals(user, other.user)
                && Objects.equals(password, other.password);
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
