namespace rtagent {}
