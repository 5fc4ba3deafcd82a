package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example EAR (ear-example/) as the build made it, with its embedded RAR: orders posted to its REST endpoint are
 * published through the pooled factory, stored with JPA by its MDB once each, and its report endpoint replays a time
 * range of the {@code orders} topic into exactly the orders sent in that range.
 *
 * <p>Time ranges are cut on the wall clock this JVM shares with the server (same machine): a record's timestamp is
 * the server's clock when it was sent, after the POST started and before the MDB stored it. So a batch whose orders
 * are all stored was sent at or before the clock read after that; the next batch is posted only once the clock has
 * moved past that reading, so it was sent strictly later. Each run's customers carry a run id, so orders of another
 * run in the same server do not count.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
class ExampleEarIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Deployment(testable = false)
    static EnterpriseArchive ear() {
        return Deployments.exampleEar();
    }

    /** The web module's context root, /tributary-example/. */
    @ArquillianResource
    private URL app;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /** An order as posted, and as the endpoints show it. */
    private record Order(String customer, String item, int quantity) {

        String json() {
            return "{\"customer\": \"" + customer + "\", \"item\": \"" + item + "\", \"quantity\": " + quantity + "}";
        }

        static Order of(JsonNode node) {
            return new Order(node.get("customer").asText(), node.get("item").asText(), node.get("quantity").asInt());
        }
    }

    @Test
    void postedOrdersAreStoredOnceEachAndAReportHoldsExactlyTheOrdersOfItsRange() {
        List<Order> first = List.of(order("alice", "apples", 3), order("bob", "pears", 1), order("carol", "plums", 12));
        List<Order> second = List.of(order("dave", "apples", 5), order("erin", "figs", 2), order("frank", "apples", 4));
        List<Order> third = List.of(order("grace", "pears", 7), order("heidi", "plums", 1));

        postAndAwaitStored(first, first.size());
        long firstStored = System.currentTimeMillis();
        awaitClockPast(firstStored);
        Instant from = Instant.ofEpochMilli(firstStored + 1);
        postAndAwaitStored(second, first.size() + second.size());
        long secondStored = System.currentTimeMillis();
        awaitClockPast(secondStored);
        Instant to = Instant.ofEpochMilli(secondStored);
        List<JsonNode> stored = postAndAwaitStored(third, first.size() + second.size() + third.size());

        // Stored exactly once each: every posted order one row, in the order posted (one partition), each from its
        // own record of the log.
        List<Order> all = new ArrayList<>(first);
        all.addAll(second);
        all.addAll(third);
        assertEquals(all, stored.stream().map(Order::of).toList());
        Set<String> positions = stored.stream().map(node -> node.get("partition").asInt() + "@"
                + node.get("offset").asLong()).collect(Collectors.toSet());
        assertEquals(all.size(), positions.size(), "log positions of the stored orders: " + positions);

        // The report of [from, to] is the second batch: the replay starts at the first record at or after `from`, and
        // the third batch, past `to`, ends it without being reported.
        JsonNode report = json(Clients.call(get("api/reports?from=" + query(from) + "&to=" + query(to)), 200));
        List<JsonNode> lines = ours(report.get("lines"));
        assertEquals(second, lines.stream().map(Order::of).toList(), "report " + report);
        List<JsonNode> storedSecond = stored.subList(first.size(), first.size() + second.size());
        for (int i = 0; i < second.size(); i++) {
            assertEquals(storedSecond.get(i).get("partition").asInt(), lines.get(i).get("partition").asInt());
            assertEquals(storedSecond.get(i).get("offset").asLong(), lines.get(i).get("offset").asLong());
            Instant sentAt = Instant.parse(lines.get(i).get("sentAt").asText());
            assertTrue(!sentAt.isBefore(from) && !sentAt.isAfter(to), sentAt + " outside " + from + ".." + to);
        }
        assertEquals(second.size(), report.get("orders").asInt(), "report " + report);
        assertEquals(11, report.get("totalQuantity").asLong(), "report " + report);
        assertEquals(Map.of("apples", 9L, "figs", 2L), itemTotals(report.get("quantityByItem")));
        assertEquals(from, Instant.parse(report.get("from").asText()));
        assertEquals(to, Instant.parse(report.get("to").asText()));

        // The MDB goes on after a replay (which has no consumer group of its own): a later order is stored, once.
        Order later = order("ivan", "figs", 6);
        all.add(later);
        List<JsonNode> afterReplay = postAndAwaitStored(List.of(later), all.size());
        assertEquals(all, afterReplay.stream().map(Order::of).toList());
    }

    @Test
    void reportsRefuseBadRanges() {
        assertBadRequest("api/reports?from=2026-11-30T12:00:00Z", "to");
        assertBadRequest("api/reports?to=2026-11-30T12:00:00Z", "from");
        assertBadRequest("api/reports?from=yesterday&to=2026-11-30T12:00:00Z", "yesterday");
        assertBadRequest("api/reports?from=2026-11-30T13:00:00Z&to=2026-11-30T12:00:00Z", "after");
    }

    @Test
    void ordersWithMissingOrInvalidFieldsAreRefused() {
        assertEquals(400, status(post("{\"customer\": \"x\", \"item\": \"figs\"}")));
        assertEquals(400, status(post("{\"customer\": \" \", \"item\": \"figs\", \"quantity\": 1}")));
        assertEquals(400, status(post("{\"customer\": \"x\", \"item\": \"figs\", \"quantity\": 0}")));
    }

    private Order order(String customer, String item, int quantity) {
        return new Order(customer + "-" + run, item, quantity);
    }

    /** Posts each order (202 each), then waits until this run has {@code expected} stored orders; returns them. */
    private List<JsonNode> postAndAwaitStored(List<Order> orders, int expected) {
        for (Order order : orders) {
            Clients.call(post(order.json()), 202);
        }
        return Clients.await(() -> ours(json(Clients.call(get("api/orders"), 200))), seen -> seen.size() >= expected,
                TIMEOUT);
    }

    /** This run's orders of a JSON array, in its order. */
    private List<JsonNode> ours(JsonNode array) {
        List<JsonNode> mine = new ArrayList<>();
        array.forEach(node -> {
            if (node.get("customer").asText().endsWith("-" + run)) {
                mine.add(node);
            }
        });
        return mine;
    }

    private static Map<String, Long> itemTotals(JsonNode object) {
        Map<String, Long> totals = new HashMap<>();
        object.fields().forEachRemaining(entry -> totals.put(entry.getKey(), entry.getValue().asLong()));
        return totals;
    }

    /** Waits (a condition with a deadline) until the wall clock reads later than {@code millis}. */
    private static void awaitClockPast(long millis) {
        long now = Clients.await(System::currentTimeMillis, time -> time > millis, Duration.ofSeconds(5));
        assertTrue(now > millis, "the clock did not move past " + millis);
    }

    private void assertBadRequest(String path, String mentioned) {
        HttpResponse<String> response = Clients.send(get(path));
        assertEquals(400, response.statusCode(), path + ": " + response.body());
        assertTrue(response.body().contains(mentioned), path + ": " + response.body());
    }

    private static String query(Instant instant) {
        return URLEncoder.encode(instant.toString(), StandardCharsets.UTF_8);
    }

    private HttpRequest get(String path) {
        return HttpRequest.newBuilder(resolve(path)).header("Accept", "application/json").GET().build();
    }

    private HttpRequest post(String json) {
        return HttpRequest.newBuilder(resolve("api/orders")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    }

    private URI resolve(String path) {
        try {
            return app.toURI().resolve(path);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(app + " " + path, e);
        }
    }

    private static int status(HttpRequest request) {
        return Clients.send(request).statusCode();
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }
}
