package io.tributary.jms;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.jms.Destination;
import jakarta.jms.JMSException;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The temporary queues and topics one connection created (Jakarta Messaging 3.1 §4.1.5, §4.2.7): each a real Kafka
 * topic of one partition, named {@code jms.temp-queue.<connection id>.<n>} or {@code jms.temp-topic.<connection
 * id>.<n>}, created and deleted through the connection's admin client (waiting up to 30 s), and all deleted when the
 * connection closes. The connection is their {@link TemporaryDestinationOwner}.
 *
 * <p>Threads: any; the list of destinations is thread-safe.
 */
final class TemporaryDestinations {

    private static final Logger log = LoggerFactory.getLogger(TemporaryDestinations.class);
    private static final long ADMIN_TIMEOUT_S = 30;

    private final TributaryConnection connection;
    private final List<Destination> created = new CopyOnWriteArrayList<>();
    private final AtomicInteger counter = new AtomicInteger();

    TemporaryDestinations(TributaryConnection connection) {
        this.connection = connection;
    }

    TributaryTemporaryQueue createQueue() throws JMSException {
        return added(TributaryTemporaryQueue.create(createTopic("queue"), connection));
    }

    TributaryTemporaryTopic createTopic() throws JMSException {
        return added(TributaryTemporaryTopic.create(createTopic("topic"), connection));
    }

    /** Whether {@code destination} is one of these (and not deleted yet). */
    boolean contains(Destination destination) {
        return created.contains(destination);
    }

    /** Deletes the topic of {@code destination}, one of these; the connection has checked that nobody reads it. */
    void delete(Destination destination) throws JMSException {
        String name = Destinations.topicName(destination);
        await(connection.admin().deleteTopics(List.of(name)).all(), "Deleting temporary destination " + name);
        created.remove(destination);
    }

    /** At close: deletes every one left; a failure is logged, and the others are still deleted. */
    void deleteAll() {
        for (Destination temporary : List.copyOf(created)) {
            try {
                delete(temporary);
            } catch (JMSException e) {
                log.warn("Could not delete temporary destination {}: {}", temporary, e.getMessage());
            }
        }
    }

    private <D extends Destination> D added(D temporary) {
        created.add(temporary);
        return temporary;
    }

    /** Creates the topic of a new temporary destination of {@code kind} ("queue" or "topic"); returns its name. */
    private String createTopic(String kind) throws JMSException {
        String name = "jms.temp-" + kind + "." + connection.connectionId() + "." + counter.incrementAndGet();
        await(connection.admin().createTopics(List.of(new NewTopic(name, 1, (short) -1))).all(),
                "Creating temporary destination " + name);
        return name;
    }

    /** Waits up to 30 s for an admin call; its failure becomes a JMSException saying what was being done. */
    private static void await(KafkaFuture<Void> call, String doing) throws JMSException {
        try {
            call.get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw JmsErrors.fromKafka(doing, e);
        } catch (ExecutionException | TimeoutException e) {
            throw JmsErrors.fromKafka(doing, e);
        }
    }
}
