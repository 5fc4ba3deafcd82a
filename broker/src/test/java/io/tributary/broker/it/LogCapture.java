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
    private final boolean previousAdditive;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture(String loggerName, Level level) {
        this(loggerName, level, true);
    }

    private LogCapture(String loggerName, Level level, boolean additive) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        previousLevel = logger.getLevel();
        previousAdditive = logger.isAdditive();
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(level);
        logger.setAdditive(additive);
    }

    /**
     * Captures without passing the lines on to the console while open: for tests that provoke thousands of expected
     * warnings and report the unexpected ones themselves.
     */
    static LogCapture quiet(String loggerName, Level level) {
        return new LogCapture(loggerName, level, false);
    }

    List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent event : events()) {
            lines.add(event.getLevel() + " " + event.getFormattedMessage());
        }
        return lines;
    }

    /** The events so far, with their logger, thread and throwable. */
    List<ILoggingEvent> events() {
        synchronized (appender) { // AppenderBase appends under this lock
            return new ArrayList<>(appender.list);
        }
    }

    List<String> linesContaining(String part) {
        return lines().stream().filter(line -> line.contains(part)).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(previousLevel);
        logger.setAdditive(previousAdditive);
    }
}
