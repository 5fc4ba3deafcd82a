package io.tributary.broker.metrics;

import java.util.Map;
import java.util.function.Supplier;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;

/**
 * A read-only JMX bean whose attributes are named values, read when asked: the shape of the beans Kafka publishes
 * through its Kafka Metrics library ({@code kafka.server:type=group-coordinator-metrics} has an attribute
 * {@code offset-count}, for example). Values are doubles, as there. Thread-safe: the suppliers must be.
 */
final class AttributeBean implements DynamicMBean {

    private final Map<String, Supplier<Double>> attributes;
    private final MBeanInfo info;

    AttributeBean(Map<String, Supplier<Double>> attributes) {
        this.attributes = Map.copyOf(attributes);
        MBeanAttributeInfo[] infos = this.attributes.keySet().stream().sorted()
                .map(name -> new MBeanAttributeInfo(name, "double", name, true, false, false))
                .toArray(MBeanAttributeInfo[]::new);
        this.info = new MBeanInfo(AttributeBean.class.getName(), "metrics", infos, null, null, null);
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        Supplier<Double> value = attributes.get(attribute);
        if (value == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return value.get();
    }

    @Override
    public void setAttribute(Attribute attribute) {
        throw new UnsupportedOperationException("read-only");
    }

    @Override
    public AttributeList getAttributes(String[] names) {
        AttributeList list = new AttributeList();
        for (String name : names) {
            Supplier<Double> value = attributes.get(name);
            if (value != null) {
                list.add(new Attribute(name, value.get()));
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException(actionName);
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
