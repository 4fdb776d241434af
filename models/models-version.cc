// The models library's version string (also keeps the library non-empty while it grows).
namespace mrcsim
{
const char*
ModelsVersion()
{
  return "0.1.0";
}
} // namespace mrcsim
