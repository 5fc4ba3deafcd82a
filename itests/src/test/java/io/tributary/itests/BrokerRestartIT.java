package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.tributary.itests.restart.Ledger;
import io.tributary.itests.restart.RestartListener;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The broker stops and starts again (same port, same log directory) while an MDB ({@link RestartListener}) is in the
 * middle of a delivery: delivery resumes on its own once the broker is back, every message the broker acknowledged
 * to the sender is delivered, and none is delivered twice. The server and its adapter stay up throughout.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class BrokerRestartIT {

    /** Covers the adapter's reconnection back-off (at most 30 s) after the restart, on a loaded machine. */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @Deployment(name = "adapter", order = 1, testable = false)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = "app", order = 2, testable = false)
    static WebArchive application() {
        return Deployments.applicationBesideAdapter("restart.war", RestartListener.class);
    }

    @ArquillianResource
    @OperateOnDeployment("app")
    private URL app;

    @Test
    void deliveryResumesAfterTheBrokerRestartsAndNothingAcknowledgedIsLostOrDeliveredTwice() {
        List<String> beforeStop = texts(1, 60);
        Clients.sendToQueue(RestartListener.QUEUE, beforeStop);
        int hold = beforeStop.indexOf(Ledger.HOLD);

        // One partition: the MDB is inside the delivery of HOLD, everything before it delivered, nothing after it.
        List<String> held = Clients.await(this::deliveries, seen -> seen.size() > hold, TIMEOUT);
        assertEquals(once(beforeStop.subList(0, hold + 1)), held);

        TributaryBroker.stop();
        try {
            // HOLD's delivery ends with the broker away (its offset commit cannot reach it), and whatever the
            // adapter had fetched behind it is delivered meanwhile.
            Clients.post(app, "ledger", "", 204);
        } finally {
            TributaryBroker.start();
        }
        List<String> afterRestart = texts(61, 90);
        Clients.sendToQueue(RestartListener.QUEUE, afterRestart);

        List<String> all = new ArrayList<>(beforeStop);
        all.addAll(afterRestart);
        // Exactly once, not merely at least once: the server stayed up, and the adapter remembers how far it
        // delivered on a partition whose offset commit failed and resumes there, not at the older committed offset.
        // Only a server crash between a delivery and its commit delivers a message again (docs/deploy-wildfly.md,
        // limits).
        List<String> delivered = Clients.await(this::deliveries, seen -> seen.size() >= all.size(), TIMEOUT);
        assertEquals(once(all), delivered);
        assertEquals(once(all), Clients.await(this::deliveries, seen -> false, Duration.ofSeconds(2)),
                "nothing delivered again later");
    }

    private List<String> deliveries() {
        return Clients.lines(Clients.get(app, "ledger"));
    }

    private static List<String> texts(int first, int last) {
        return IntStream.rangeClosed(first, last).mapToObj(i -> "m-" + i).toList();
    }

    /** The ledger lines of first deliveries of {@code texts}, in order. */
    private static List<String> once(List<String> texts) {
        return texts.stream().map(text -> text + "|false|1").toList();
    }
}
