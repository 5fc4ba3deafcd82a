package io.tributary.ra.inbound;

import java.time.Duration;

/**
 * The running delivery of one activation, as {@link InboundActivation} stops it: the consumer-group fetcher
 * ({@link RecordFetcher}) or the share-group members ({@link ShareDelivery}).
 *
 * <p>Both methods may be called from any thread, in this order.
 */
interface ActivationDelivery {

    /** Asks delivery to stop: what is in flight finishes, nothing new starts. Does not wait. */
    void requestStop();

    /**
     * Waits until delivery has stopped: in-flight messages finished and settled, the clients closed; false if that
     * took longer than {@code timeout}.
     */
    boolean awaitStopped(Duration timeout);
}
