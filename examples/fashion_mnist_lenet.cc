// Placeholder replaced by the Fashion-MNIST training demo.
int main() { return 0; }
