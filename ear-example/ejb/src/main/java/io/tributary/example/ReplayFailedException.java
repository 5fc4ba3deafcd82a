package io.tributary.example;

/**
 * A replay ({@link OrderReplay#report}) that could not read its whole range: the cluster is unreachable, the range
 * holds more orders than a report takes, or reading it took longer than a report may. The message says which, for
 * the caller to show. A checked (application) exception, so the container passes it on as is.
 */
public class ReplayFailedException extends Exception {

    private static final long serialVersionUID = 1L;

    public ReplayFailedException(String message) {
        super(message);
    }

    public ReplayFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
