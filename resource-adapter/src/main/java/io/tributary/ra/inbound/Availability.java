package io.tributary.ra.inbound;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;

/**
 * Whether something an activation depends on (the cluster, the endpoint, the dead-letter topic) works, logged once per
 * change: the first failure at WARN with its cause, further failures at DEBUG, the recovery at INFO. A dependency that
 * stays away for an hour writes two lines, not thousands. Each failure is also the activation's last failure in its
 * {@link ActivationStatistics}, and a failing cluster or endpoint is its JMX state.
 *
 * <p>Thread-safe: the state changes by compare-and-set, so concurrent reporters log a change once.
 */
final class Availability {

    private final Logger log;
    private final String what;
    private final ActivationStatistics.Dependency dependency;
    private final ActivationStatistics statistics;
    private final AtomicBoolean failing = new AtomicBoolean();
    /** When the current failure began; null while working. Written by the reporter that changed the state. */
    private volatile Instant failingSince;

    /**
     * Made by {@link ActivationStatistics#availability}.
     *
     * @param what names the dependency and its user for the log, such as "the cluster for queue orders"
     */
    Availability(Logger log, String what, ActivationStatistics.Dependency dependency,
                 ActivationStatistics statistics) {
        this.log = log;
        this.what = what;
        this.dependency = dependency;
        this.statistics = statistics;
    }

    /** An operation failed; {@code retry} says when or how it is tried again. */
    void failed(String operation, Throwable cause, String retry) {
        statistics.failed(operation + " failed, " + retry + ": " + cause);
        if (failing.compareAndSet(false, true)) {
            failingSince = statistics.now();
            log.warn("{}: {} failed, {}: {}", what, operation, retry, String.valueOf(cause));
        } else if (log.isDebugEnabled()) {
            log.debug("{}: {} failed again, {}: {}", what, operation, retry, String.valueOf(cause));
        }
    }

    /** An operation succeeded. */
    void succeeded(String operation) {
        if (failing.compareAndSet(true, false)) {
            failingSince = null;
            log.info("{}: {} works again", what, operation);
        }
    }

    boolean isFailing() {
        return failing.get();
    }

    Instant failingSince() {
        return failingSince;
    }

    ActivationStatistics.Dependency dependency() {
        return dependency;
    }
}
