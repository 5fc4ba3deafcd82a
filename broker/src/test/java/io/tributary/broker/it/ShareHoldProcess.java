package io.tributary.broker.it;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A share consumer in a process of its own ({@link io.tributary.testsupport.ChildJvm}) so that a test can SIGKILL it
 * while it holds records: it polls in explicit acknowledgement mode until it has {@code count} records, prints
 * {@code held <offset>} for each and {@code holding} once, then waits without acknowledging anything.
 *
 * <pre>ShareHoldProcess bootstrap group topic count</pre>
 */
public final class ShareHoldProcess {

    private ShareHoldProcess() {
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put("share.acknowledgement.mode", "explicit");
        int wanted = Integer.parseInt(args[3]);
        KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props);
        consumer.subscribe(List.of(args[2]));
        int held = 0;
        while (held == 0) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                System.out.println("held " + record.offset());
                held++;
            }
        }
        System.out.println("holding " + held + " of " + wanted);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
