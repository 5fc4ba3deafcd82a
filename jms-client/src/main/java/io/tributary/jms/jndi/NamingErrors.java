package io.tributary.jms.jndi;

import javax.naming.NamingException;

/** Builds the {@link NamingException}s this package throws. Stateless; any thread. */
final class NamingErrors {

    private NamingErrors() {
    }

    /** A NamingException whose root cause (and so {@code getCause()}) is {@code cause}. */
    static NamingException withCause(String message, Throwable cause) {
        NamingException e = new NamingException(message);
        e.setRootCause(cause);
        return e;
    }
}
