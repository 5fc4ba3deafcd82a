package io.tributary.broker.testsupport;

import java.util.Map;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.broker.BrokerMain;
import io.tributary.testsupport.BrokerRuntime;

/**
 * The broker as test-support starts it ({@code META-INF/services/io.tributary.testsupport.BrokerRuntime}): test-support
 * cannot depend on the broker, whose tests use it, so it finds this class on the test class path. It is in the
 * broker's test jar for the other modules' tests.
 */
public final class TributaryBrokerRuntime implements BrokerRuntime {

    @Override
    public String mainClass() {
        return BrokerMain.class.getName();
    }

    @Override
    public Running start(Map<String, String> properties) {
        Broker broker = Broker.start(BrokerConfig.parse(properties));
        return new Running() {
            @Override
            public String bootstrapServers() {
                return broker.bootstrapServers();
            }

            @Override
            public int port() {
                return broker.boundPort("PLAINTEXT");
            }

            @Override
            public void close() {
                broker.close();
            }
        };
    }
}
