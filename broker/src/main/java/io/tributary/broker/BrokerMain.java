package io.tributary.broker;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Command line: {@code tributary-broker [server.properties] [--override key=value ...]}. Reads the properties file
 * (if given), applies the overrides, validates everything once, starts the broker, and shuts it down cleanly on
 * SIGTERM or Ctrl-C. A bad configuration ends the process with exit code 1 and a message naming the property; so does
 * the loss of every log directory, after the broker has shut itself down.
 */
public final class BrokerMain {

    private static final Logger log = LoggerFactory.getLogger(BrokerMain.class);

    private BrokerMain() {
    }

    public static void main(String[] args) {
        BrokerConfig config;
        try {
            config = BrokerConfig.parse(properties(args));
        } catch (ConfigException | IllegalArgumentException | IOException e) {
            System.err.println("tributary-broker: invalid configuration: " + e.getMessage());
            System.err.println("usage: tributary-broker [server.properties] [--override key=value ...]");
            System.exit(1);
            return;
        }
        Broker broker;
        try {
            broker = Broker.start(config);
        } catch (RuntimeException e) {
            log.error("Broker {} failed to start: {}", config.brokerId, e.getMessage(), e);
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "tributary-shutdown"));
        boolean everyLogDirFailed;
        try {
            everyLogDirFailed = broker.stopped().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (java.util.concurrent.ExecutionException e) {
            everyLogDirFailed = false;
        }
        if (everyLogDirFailed) {
            // The broker stopped itself: a supervisor must see a failure, as Kafka's halt(1) shows one.
            System.exit(1);
        }
    }

    /** The properties file (first argument, if not an option) with the {@code --override key=value} pairs on top. */
    static Map<String, String> properties(String[] args) throws IOException {
        Map<String, String> result = new LinkedHashMap<>();
        int i = 0;
        if (args.length > 0 && !args[0].startsWith("--")) {
            Properties file = new Properties();
            try (Reader reader = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
                file.load(reader);
            }
            for (String name : file.stringPropertyNames()) {
                result.put(name, file.getProperty(name).trim());
            }
            i = 1;
        }
        for (; i < args.length; i++) {
            if (!args[i].equals("--override") || i + 1 >= args.length) {
                throw new IllegalArgumentException("unexpected argument '" + args[i] + "'");
            }
            String pair = args[++i];
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--override takes key=value, not '" + pair + "'");
            }
            result.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return result;
    }
}
