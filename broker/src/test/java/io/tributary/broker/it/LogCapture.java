package io.tributary.broker.it;

import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/** Captures one logger's lines (at the given level and above) while open; for what a client or broker reports. */
final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final Level previousLevel;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture(String loggerName, Level level) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        previousLevel = logger.getLevel();
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

    List<String> linesContaining(String part) {
        return lines().stream().filter(line -> line.contains(part)).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(previousLevel);
    }
}
