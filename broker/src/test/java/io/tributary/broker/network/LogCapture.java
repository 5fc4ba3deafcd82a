package io.tributary.broker.network;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/** Captures the network layer's log lines (INFO and above, unless told otherwise) while open. */
final class LogCapture implements AutoCloseable {

    private final Logger logger = (Logger) LoggerFactory.getLogger(SocketServer.class.getPackageName());
    private final Level previousLevel = logger.getLevel();
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture() {
        this(Level.INFO);
    }

    /** Captures lines at {@code level} and above. */
    LogCapture(Level level) {
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(level);
    }

    List<String> lines() {
        synchronized (appender) { // AppenderBase appends under this lock
            List<String> lines = new ArrayList<>();
            for (ILoggingEvent event : appender.list) {
                lines.add(event.getLevel() + " " + event.getFormattedMessage());
            }
            return lines;
        }
    }

    /** Waits for a line containing every one of {@code parts}; returns it. */
    String awaitLine(String... parts) {
        await().untilAsserted(() -> assertTrue(() -> find(parts) != null,
                () -> "a log line with " + Arrays.toString(parts) + " in " + lines()));
        return find(parts);
    }

    private String find(String... parts) {
        for (String line : lines()) {
            if (Arrays.stream(parts).allMatch(line::contains)) {
                return line;
            }
        }
        return null;
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(previousLevel);
    }
}
