package io.tributary.example;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;

/**
 * The orders received so far, in arrival order, in memory (a real application would store them with JPA in the
 * MDB's transaction).
 *
 * <p>Bean-managed concurrency over a thread-safe list: the MDB adds while the REST endpoint reads, and neither waits
 * for the other (container-managed concurrency would make every call take the singleton's write lock).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class OrderBook {

    private final List<String> orders = new CopyOnWriteArrayList<>();

    public void add(String order) {
        orders.add(order);
    }

    public List<String> orders() {
        return List.copyOf(orders);
    }
}
