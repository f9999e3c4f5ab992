// PLACEHOLDER so the service library is not empty while issue 6 is built; removed by then.
namespace rtagent::service {
int PlaceholderUnused() { return 0; }
}  // namespace rtagent::service
