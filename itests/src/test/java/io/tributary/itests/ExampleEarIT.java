package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.time.Duration;
import java.util.List;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example EAR (ear-example/) as the build made it, with its embedded RAR: orders posted to its REST endpoint are
 * published by its stateless bean through the pooled factory and reach its MDB, once each, in order.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class ExampleEarIT {

    @Deployment(testable = false)
    static EnterpriseArchive ear() {
        return Deployments.exampleEar();
    }

    /** The web module's context root, /tributary-example/. */
    @ArquillianResource
    private URL app;

    @Test
    void postedOrdersReachTheMdbOnceEachInOrder() {
        List<String> orders = List.of("order-1: 3 apples", "order-2: 1 pear", "order-3: 12 plums");

        for (String order : orders) {
            Clients.post(app, "api/orders", order, 202);
        }

        List<String> received = Clients.await(() -> Clients.lines(Clients.get(app, "api/orders")),
                seen -> seen.size() >= orders.size(), Duration.ofSeconds(60));
        assertEquals(orders, received);
    }
}
