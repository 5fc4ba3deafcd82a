package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example EAR stores an order exactly once even when its record is delivered again after the order was stored:
 * the case of a crash between the MDB's database commit and the adapter's offset commit. The test makes that
 * window happen for real: it stores orders, undeploys the EAR (its database, WildFly's in-memory ExampleDS, lives on
 * with the server), moves the MDB's consumer group {@code orders} back to the start of the topic, as if no offset had
 * ever been committed, and deploys the EAR again. The MDB then receives every record of the topic a second time;
 * the orders must still be there once each, with the same ids, every record must be consumed (the group's committed
 * offset reaches the end of the log), and none dead-lettered (a duplicate refused only by the unique constraint
 * would fail its delivery until it went to {@code orders.dead-letters}).
 *
 * <p>The deployment is deployed by the test ({@code managed = false}), so Arquillian cannot inject its URL before
 * it exists: the address is the server's HTTP port, which the build passes as {@code tributary.itests.http.port}.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class ExampleEarRedeliveryIT {

    private static final String EAR = "example-redelivery";
    private static final String GROUP = "orders";
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Deployment(name = EAR, managed = false, testable = false)
    static EnterpriseArchive ear() {
        return Deployments.exampleEar();
    }

    @ArquillianResource
    private Deployer deployer;

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final URI app = URI.create("http://127.0.0.1:"
            + TributaryBroker.requiredProperty("tributary.itests.http.port")
            + "/tributary-example/");

    @Test
    void aRecordDeliveredAgainAfterItsOrderWasStoredIsNotStoredTwice() throws Exception {
        List<String> posted = List.of("{\"customer\": \"judy-" + run + "\", \"item\": \"apples\", \"quantity\": 2}",
                "{\"customer\": \"ken-" + run + "\", \"item\": \"pears\", \"quantity\": 8}",
                "{\"customer\": \"liz-" + run + "\", \"item\": \"figs\", \"quantity\": 1}");
        deployer.deploy(EAR);
        boolean deployed = true;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                TributaryBroker.bootstrapServers()))) {
            for (String order : posted) {
                assertEquals(202, Clients.send(HttpRequest.newBuilder(app.resolve("api/orders"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(order)).build()).statusCode());
            }
            List<String> stored = Clients.await(this::ourStoredOrders, rows -> rows.size() >= posted.size(), TIMEOUT);
            assertEquals(posted.size(), stored.size(), "stored: " + stored);
            Map<TopicPartition, Long> end = endOffsets(admin, GROUP);
            assertEquals(end, Clients.await(() -> committed(admin), end::equals, TIMEOUT),
                    "the MDB's group did not consume the whole topic");

            deployer.undeploy(EAR);
            deployed = false;
            Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
            end.keySet().forEach(partition -> start.put(partition, new OffsetAndMetadata(0)));
            // The group is empty once the undeployed MDB's consumer has left it; until then the broker refuses.
            Boolean rewound = Clients.await(() -> rewind(admin, start), done -> done, TIMEOUT);
            assertTrue(rewound, "could not move group " + GROUP + " back to " + start);
            Map<TopicPartition, Long> zero = new HashMap<>();
            end.keySet().forEach(partition -> zero.put(partition, 0L));
            assertEquals(zero, committed(admin));

            deployer.deploy(EAR);
            deployed = true;
            assertEquals(end, Clients.await(() -> committed(admin), end::equals, TIMEOUT),
                    "the redeployed MDB did not consume the topic again");
            assertEquals(stored, ourStoredOrders(), "orders after every record was delivered again");
            assertEquals(0L, endOffsets(admin, "orders.dead-letters").values().stream().mapToLong(Long::longValue)
                    .sum(), "records dead-lettered");
        } finally {
            if (deployed) {
                deployer.undeploy(EAR);
            }
        }
    }

    /** This run's stored orders, one line each: id, log position and content. */
    private List<String> ourStoredOrders() {
        HttpResponse<String> response = Clients.send(HttpRequest.newBuilder(app.resolve("api/orders"))
                .header("Accept", "application/json").GET().build());
        if (response.statusCode() != 200) {
            return List.of("GET api/orders answered " + response.statusCode());
        }
        List<String> rows = new ArrayList<>();
        try {
            for (JsonNode node : JSON.readTree(response.body())) {
                if (node.get("customer").asText().endsWith("-" + run)) {
                    rows.add(node.get("id").asLong() + " " + node.get("partition").asInt() + "@"
                            + node.get("offset").asLong() + " " + node.get("customer").asText() + " "
                            + node.get("item").asText() + " " + node.get("quantity").asInt());
                }
            }
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
        return rows;
    }

    private static Map<TopicPartition, Long> committed(Admin admin) {
        try {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS)
                    .forEach((partition, offset) -> {
                        if (offset != null) {
                            offsets.put(partition, offset.offset());
                        }
                    });
            return offsets;
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("reading the offsets of group " + GROUP, e);
        }
    }

    /** The log end offset of each partition of {@code topic}; empty if there is no such topic. */
    private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> query = new HashMap<>();
        try {
            admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions()
                    .forEach(p -> query.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Map.of();
            }
            throw e;
        }
        Map<TopicPartition, Long> end = new HashMap<>();
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> entry
                : admin.listOffsets(query).all().get(10, TimeUnit.SECONDS).entrySet()) {
            end.put(entry.getKey(), entry.getValue().offset());
        }
        return end;
    }

    private static boolean rewind(Admin admin, Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            admin.alterConsumerGroupOffsets(GROUP, offsets).all().get(10, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
